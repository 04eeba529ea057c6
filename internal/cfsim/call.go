package cfsim

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
)

// maxBodyBytes bounds request bodies; every body the roles send is tiny.
const maxBodyBytes = 1 << 20

// call is the per-request context handed to handlers.
type call struct {
	s      *Server
	r      *http.Request
	path   string // path relative to APIPrefix, for error messages
	params map[string]string
	query  url.Values
	token  string
	body   []byte

	// status overrides the 200 a successful handler answers with.
	status int
	// info is set by list handlers.
	info *ResultInfo
}

func (c *call) param(name string) string { return c.params[name] }

// created marks the response as 201 Created (Access creates do this).
func (c *call) created() { c.status = http.StatusCreated }

// decode parses the JSON body into v. A syntax error is Cloudflare's
// malformed-JSON error; a field of the wrong type is a validation error of
// the resource, built by invalid.
func (c *call) decode(v any, invalid func(string) *apiError) error {
	body := bytes.TrimSpace(c.body)
	if len(body) == 0 {
		body = []byte("{}")
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(v); err != nil {
		var typeErr *json.UnmarshalTypeError
		if errors.As(err, &typeErr) {
			return invalid(fmt.Sprintf("invalid type for field %q: expected %s", typeErr.Field, typeErr.Type))
		}
		return errMalformedJSON()
	}
	if dec.More() {
		return errMalformedJSON()
	}
	return nil
}

// readBody slurps the request body, bounded by maxBodyBytes.
func readBody(r *http.Request) ([]byte, error) {
	if r.Body == nil {
		return nil, nil
	}
	b, err := io.ReadAll(io.LimitReader(r.Body, maxBodyBytes+1))
	if err != nil {
		return nil, err
	}
	if len(b) > maxBodyBytes {
		return nil, errors.New("request body too large")
	}
	return b, nil
}

// queryBool parses an optional boolean query parameter.
func (c *call) queryBool(name string) (value, present bool) {
	raw := c.query.Get(name)
	if raw == "" {
		return false, false
	}
	b, err := strconv.ParseBool(raw)
	if err != nil {
		return false, false
	}
	return b, true
}
