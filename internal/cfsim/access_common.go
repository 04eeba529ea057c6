package cfsim

import (
	"net/http"
	"strings"
)

// Access error codes: every validation failure is 12130 with an
// "access.api.error.invalid_request: <detail>" message, and a missing object
// is 404 with 12135 "access.api.error.not_found".
const (
	codeAccessInvalid  = 12130
	codeAccessNotFound = 12135
)

func accessInvalid(detail string) *apiError {
	return newAPIError(http.StatusBadRequest, codeAccessInvalid, "access.api.error.invalid_request: "+detail)
}

func errAccessNotFound() *apiError {
	return newAPIError(http.StatusNotFound, codeAccessNotFound, "access.api.error.not_found")
}

// matchesSearch is the case-insensitive substring match behind the Access
// list endpoints' search parameter.
func matchesSearch(search string, fields ...string) bool {
	if search == "" {
		return true
	}
	search = strings.ToLower(search)
	for _, f := range fields {
		if strings.Contains(strings.ToLower(f), search) {
			return true
		}
	}
	return false
}
