package urls

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"strings"
	"syscall"

	"github.com/cfzt/cfzt-runner/engine/py"
)

// The failures of Open, as urllib raises them. Each caller words them as
// its Python counterpart does: fetch_url (uri, get_url) with "Request
// failed: " and "Connection failure: ", the url lookup with "Failed
// lookup url for ...".

// URLError is urllib's URLError: a failure while connecting or sending
// (refused, name resolution, certificate checks, an unknown scheme).
type URLError struct{ Reason string }

func (e *URLError) Error() string { return "<urlopen error " + e.Reason + ">" }

// OSError is a failure urllib does not wrap: one while waiting for or
// reading the answer (a timeout, a TLS alert, a closed connection), or
// while building the SSL context (a missing CA file).
type OSError struct{ Text string }

func (e *OSError) Error() string { return e.Text }

// ValueError is urllib refusing the URL itself (no scheme).
type ValueError struct{ Text string }

func (e *ValueError) Error() string { return e.Text }

// UnsupportedError is a setting cfzt-runner refuses (GSSAPI, cipher
// lists), where ansible-core's open_url raises MissingModuleError or
// applies it: fetch_url fails with the message alone.
type UnsupportedError struct{ Text string }

func (e *UnsupportedError) Error() string { return e.Text }

// HTTPError is urllib's HTTPError: an answer that is neither a success
// nor a redirect it follows. Response holds the answer (its body read).
type HTTPError struct {
	*Response
	// Msg is the reason urllib gives: the status line's, or the
	// redirect handler's.
	Msg string
}

func (e *HTTPError) Error() string { return fmt.Sprintf("HTTP Error %d: %s", e.Status, e.Msg) }

// FetchMessage is fetch_url's msg for a failure that is not an HTTP error.
func FetchMessage(err error) string {
	var ue *URLError
	if errors.As(err, &ue) {
		return "Request failed: " + ue.Error()
	}
	return "Connection failure: " + err.Error()
}

// errReadTimeout is a body read that waited longer than the timeout.
var errReadTimeout = errors.New("read timeout")

// transportError classifies a failed request as urllib would raise it:
// failures while connecting (and the TLS handshake) are URLErrors,
// failures after the request was sent are OSErrors.
func transportError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	if err == errReadTimeout || strings.Contains(err.Error(), "timeout awaiting response headers") {
		return &OSError{"timed out"}
	}
	var dnsErr *net.DNSError
	if errors.As(err, &dnsErr) {
		if dnsErr.IsNotFound {
			return &URLError{"[Errno -2] Name or service not known"}
		}
		return &URLError{"[Errno -3] Temporary failure in name resolution"}
	}
	var op *net.OpError
	if errors.As(err, &op) && op.Op == "dial" {
		if op.Timeout() {
			return &URLError{"timed out"}
		}
		return &URLError{errnoText(op.Err)}
	}
	if msg, ok := tlsError(err); ok {
		return &URLError{msg}
	}
	switch s := err.Error(); {
	case strings.Contains(s, "server gave HTTP response to HTTPS client"):
		return &URLError{"[SSL: WRONG_VERSION_NUMBER] wrong version number (_ssl.c:992)"}
	case strings.Contains(s, "TLS handshake timeout"):
		return &URLError{"_ssl.c:993: The handshake operation timed out"}
	case strings.Contains(s, "tls: certificate required"):
		return &OSError{"[SSL: TLSV13_ALERT_CERTIFICATE_REQUIRED] tlsv13 alert certificate required (_ssl.c:2546)"}
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return &OSError{"Remote end closed connection without response"}
	}
	var en syscall.Errno
	if errors.As(err, &en) {
		return &OSError{errnoText(en)}
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return &OSError{"timed out"}
	}
	if errors.Is(err, context.Canceled) {
		return &OSError{"interrupted"}
	}
	return &OSError{err.Error()}
}

// errnoText renders a syscall error as Python's OSError str does.
func errnoText(err error) string {
	var en syscall.Errno
	if errors.As(err, &en) {
		return fmt.Sprintf("[Errno %d] %s", int(en), py.Strerror(en))
	}
	return err.Error()
}

// tlsError words certificate failures as OpenSSL does through Python's ssl.
func tlsError(err error) (string, bool) {
	verify := func(s string) (string, bool) {
		return "[SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed: " + s + " (_ssl.c:992)", true
	}
	var ua x509.UnknownAuthorityError
	if errors.As(err, &ua) {
		if c := ua.Cert; c != nil && bytes.Equal(c.RawIssuer, c.RawSubject) {
			return verify("self-signed certificate")
		}
		return verify("unable to get local issuer certificate")
	}
	var he x509.HostnameError
	if errors.As(err, &he) {
		if net.ParseIP(he.Host) != nil {
			return verify(fmt.Sprintf("IP address mismatch, certificate is not valid for '%s'.", he.Host))
		}
		return verify(fmt.Sprintf("Hostname mismatch, certificate is not valid for '%s'.", he.Host))
	}
	var ci x509.CertificateInvalidError
	if errors.As(err, &ci) {
		if ci.Reason == x509.Expired {
			if strings.Contains(ci.Detail, "before") {
				return verify("certificate is not yet valid")
			}
			return verify("certificate has expired")
		}
		return verify("unsupported certificate purpose")
	}
	var rh tls.RecordHeaderError
	if errors.As(err, &rh) {
		return "[SSL: WRONG_VERSION_NUMBER] wrong version number (_ssl.c:992)", true
	}
	return "", false
}

// ReadError words a failure while reading a streamed body (Response.Stream)
// as the Python exception's text.
func ReadError(err error) string { return transportError(err).Error() }
