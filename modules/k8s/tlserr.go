package k8s

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/url"
)

// sslSource is where CPython's ssl module raises a verification error, as
// its messages end with it (Python 3.13 of the reference, Debian trixie).
const sslSource = "(_ssl.c:992)"

// pyTransportError words a request that failed on a certificate the
// client could not verify as the Python client's urllib3 does (which
// kubernetes.core puts in its messages, and which roles test for
// "certificate verify failed"); other transport errors keep Go's words.
func pyTransportError(err error) string {
	var ue *url.Error
	reason := sslVerifyReason(err)
	if reason == "" || !errors.As(err, &ue) {
		return err.Error()
	}
	u, perr := url.Parse(ue.URL)
	if perr != nil {
		return err.Error()
	}
	host, port := u.Hostname(), u.Port()
	if port == "" {
		port = "443"
	}
	return fmt.Sprintf("HTTPSConnectionPool(host='%s', port=%s): Max retries exceeded with url: %s "+
		"(Caused by SSLError(SSLCertVerificationError(1, '[SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed: %s %s')))",
		host, port, u.RequestURI(), reason, sslSource)
}

// sslVerifyReason is OpenSSL's words for why a certificate failed
// verification, or "" when err is not such a failure.
func sslVerifyReason(err error) string {
	var unknown x509.UnknownAuthorityError
	var hostErr x509.HostnameError
	var invalid x509.CertificateInvalidError
	var verify *tls.CertificateVerificationError
	switch {
	case errors.As(err, &unknown):
		if c := unknown.Cert; c != nil && c.Issuer.String() == c.Subject.String() {
			return "self-signed certificate"
		}
		return "unable to get local issuer certificate"
	case errors.As(err, &hostErr):
		if net.ParseIP(hostErr.Host) != nil {
			return fmt.Sprintf("IP address mismatch, certificate is not valid for '%s'.", hostErr.Host)
		}
		return fmt.Sprintf("Hostname mismatch, certificate is not valid for '%s'.", hostErr.Host)
	case errors.As(err, &invalid) && invalid.Reason == x509.Expired:
		return "certificate has expired"
	case errors.As(err, &verify):
		return "unable to get local issuer certificate"
	}
	return ""
}
