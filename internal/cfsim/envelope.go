package cfsim

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
)

// ErrorDetail is one entry of the envelope's errors array. DNS validation
// failures nest their specific cause in ErrorChain, as Cloudflare does.
type ErrorDetail struct {
	Code       int           `json:"code"`
	Message    string        `json:"message"`
	ErrorChain []ErrorDetail `json:"error_chain,omitempty"`
}

// ResultInfo is the pagination block Cloudflare attaches to list responses.
type ResultInfo struct {
	Page       int `json:"page"`
	PerPage    int `json:"per_page"`
	Count      int `json:"count"`
	TotalCount int `json:"total_count"`
	TotalPages int `json:"total_pages"`
}

// envelope is the standard v4 response body.
type envelope struct {
	Success    bool          `json:"success"`
	Errors     []ErrorDetail `json:"errors"`
	Messages   []any         `json:"messages"`
	Result     any           `json:"result"`
	ResultInfo *ResultInfo   `json:"result_info,omitempty"`
}

// apiError is a failed API call: the HTTP status plus the envelope errors.
type apiError struct {
	status  int
	details []ErrorDetail
	// retryAfter, when positive, is sent as the Retry-After header.
	retryAfter int
}

func (e *apiError) Error() string {
	if len(e.details) == 0 {
		return fmt.Sprintf("HTTP %d", e.status)
	}
	return fmt.Sprintf("HTTP %d: %d %s", e.status, e.details[0].Code, e.details[0].Message)
}

func newAPIError(status, code int, message string) *apiError {
	return &apiError{status: status, details: []ErrorDetail{{Code: code, Message: message}}}
}

// Codes shared by every resource. Resource-specific codes live beside their
// handlers.
const (
	codeAuth          = 10000 // "Authentication error": missing, bad or foreign token
	codeRateLimited   = 971   // global API rate limit
	codeNoRoute       = 7000  // "No route for that URI"
	codeBadObjectID   = 7003  // "Could not route to ..., perhaps your object identifier is invalid?"
	codeMethodNotAllw = 10405 // method not allowed on an existing route
	codeMalformedJSON = 6007  // "Malformed JSON in request body"
	codeInternal      = 10001 // injected server errors
)

func errAuth() *apiError { return newAPIError(http.StatusForbidden, codeAuth, "Authentication error") }

func errRateLimited(retryAfter int) *apiError {
	e := newAPIError(http.StatusTooManyRequests, codeRateLimited,
		"Please wait and consider throttling your request speed")
	e.retryAfter = retryAfter
	return e
}

func errNoRoute() *apiError {
	return newAPIError(http.StatusBadRequest, codeNoRoute, "No route for that URI")
}

func errMethodNotAllowed(method string) *apiError {
	return newAPIError(http.StatusMethodNotAllowed, codeMethodNotAllw,
		fmt.Sprintf("%s method not allowed for this route", method))
}

func errMalformedJSON() *apiError {
	return newAPIError(http.StatusBadRequest, codeMalformedJSON, "Malformed JSON in request body")
}

// writeRaw sends body (an already-encoded envelope) with status, and the
// Retry-After header when retryAfter is positive.
func writeRaw(w http.ResponseWriter, status int, body []byte, retryAfter int) {
	w.Header().Set("Content-Type", "application/json")
	if retryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(retryAfter))
	}
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// encodeSuccess renders a successful envelope.
func encodeSuccess(result any, info *ResultInfo) []byte {
	return mustJSON(envelope{Success: true, Errors: []ErrorDetail{}, Messages: []any{}, Result: result, ResultInfo: info})
}

// encodeFailure renders a failed envelope; result is always null, as on
// Cloudflare.
func encodeFailure(e *apiError) []byte {
	return mustJSON(envelope{Success: false, Errors: e.details, Messages: []any{}, Result: nil})
}

func writeError(w http.ResponseWriter, e *apiError) {
	writeRaw(w, e.status, encodeFailure(e), e.retryAfter)
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		// Every value the simulator encodes is built from plain structs,
		// slices and maps, so this is a programming error.
		panic(fmt.Sprintf("cfsim: encoding response: %v", err))
	}
	return b
}
