package cfsim

import (
	"fmt"
	"net/http"
	"net/netip"
	"strings"
)

// Codes nested in a 1004 "DNS Validation Error". 9003, 9005 and 9007 are
// Cloudflare's; the rest are the simulator's choice (see README).
const (
	codeDNSBadName    = 9000
	codeDNSBadField   = 9003
	codeDNSNoProxy    = 9004
	codeDNSBadA       = 9005
	codeDNSBadAAAA    = 9006
	codeDNSBadCNAME   = 9007
	codeDNSBadContent = 9009
	codeDNSBadType    = 9020
	codeDNSBadTTL     = 9021
)

// dnsTypes are the record types the simulator accepts.
var dnsTypes = map[string]bool{
	"A": true, "AAAA": true, "CNAME": true, "TXT": true, "MX": true,
	"NS": true, "SRV": true, "CAA": true, "PTR": true,
}

// proxiableTypes may be proxied through Cloudflare.
var proxiableTypes = map[string]bool{"A": true, "AAAA": true, "CNAME": true}

func dnsValidation(code int, msg string) *apiError {
	e := newAPIError(http.StatusBadRequest, codeDNSValidation, "DNS Validation Error")
	e.details[0].ErrorChain = []ErrorDetail{{Code: code, Message: msg}}
	return e
}

func dnsBodyInvalid(msg string) *apiError { return dnsValidation(codeDNSBadField, msg) }

// applyDNSInput merges in into base and validates the result as a whole.
func applyDNSInput(r DNSRecord, in dnsInput, z *zoneRec) (DNSRecord, *apiError) {
	if in.Type != nil {
		r.Type = strings.ToUpper(strings.TrimSpace(*in.Type))
	}
	if in.Name != nil {
		r.Name = *in.Name
	}
	if in.Content != nil {
		r.Content = strings.TrimSpace(*in.Content)
	}
	if in.Proxied != nil {
		r.Proxied = *in.Proxied
	}
	if in.TTL != nil {
		r.TTL = *in.TTL
	}
	if in.Priority != nil {
		p := *in.Priority
		r.Priority = &p
	}
	if in.Comment != nil {
		c := *in.Comment
		r.Comment = &c
	}
	if in.Tags != nil {
		r.Tags = append([]string{}, (*in.Tags)...)
	}

	if r.Type == "" || !dnsTypes[r.Type] {
		return r, dnsValidation(codeDNSBadType, fmt.Sprintf("Invalid DNS record type %q.", r.Type))
	}
	name, ok := normaliseDNSName(r.Name, z.name)
	if !ok {
		return r, dnsValidation(codeDNSBadName, "DNS name is invalid.")
	}
	r.Name = name
	if err := validateDNSContent(&r); err != nil {
		return r, err
	}
	r.Proxiable = proxiableTypes[r.Type]
	if r.Proxied && !r.Proxiable {
		return r, dnsValidation(codeDNSNoProxy, "This record type cannot be proxied.")
	}
	if r.Proxied {
		// Proxied records always answer with Cloudflare's automatic TTL.
		r.TTL = 1
	}
	if r.TTL != 1 && (r.TTL < 60 || r.TTL > 86400) {
		return r, dnsValidation(codeDNSBadTTL, "TTL must be between 60 and 86400 seconds, or 1 for Automatic.")
	}
	return r, nil
}

// normaliseDNSName turns a record name into the FQDN Cloudflare stores: "@"
// is the apex, and a name outside the zone is taken as relative to it (so
// "app" becomes "app.example.com"), exactly as the dashboard and API do.
func normaliseDNSName(name, zone string) (string, bool) {
	name = strings.TrimSuffix(strings.ToLower(strings.TrimSpace(name)), ".")
	switch {
	case name == "":
		return "", false
	case name == "@":
		return zone, true
	case name != zone && !strings.HasSuffix(name, "."+zone):
		name += "." + zone
	}
	if len(name) > 253 {
		return "", false
	}
	for i, label := range strings.Split(name, ".") {
		if label == "" || len(label) > 63 {
			return "", false
		}
		if label == "*" && i == 0 {
			continue
		}
		for _, ch := range label {
			if !(ch >= 'a' && ch <= 'z' || ch >= '0' && ch <= '9' || ch == '-' || ch == '_') {
				return "", false
			}
		}
	}
	return name, true
}

func validateDNSContent(r *DNSRecord) *apiError {
	switch r.Type {
	case "A":
		ip, err := netip.ParseAddr(r.Content)
		if err != nil || !ip.Is4() {
			return dnsValidation(codeDNSBadA, "Content for A record must be a valid IPv4 address.")
		}
	case "AAAA":
		ip, err := netip.ParseAddr(r.Content)
		if err != nil || !ip.Is6() || ip.Is4In6() {
			return dnsValidation(codeDNSBadAAAA, "Content for AAAA record must be a valid IPv6 address.")
		}
		r.Content = ip.String()
	case "CNAME", "NS", "PTR":
		target := strings.TrimSuffix(strings.ToLower(r.Content), ".")
		if _, ok := normaliseDNSName(target, target); !ok || strings.Contains(target, "*") {
			code := codeDNSBadContent
			if r.Type == "CNAME" {
				code = codeDNSBadCNAME
			}
			return dnsValidation(code, fmt.Sprintf("Content for %s record is invalid.", r.Type))
		}
		r.Content = target
	default:
		if r.Content == "" {
			return dnsValidation(codeDNSBadContent, fmt.Sprintf("Content for %s record is invalid.", r.Type))
		}
	}
	return nil
}

// checkDNSConflicts enforces Cloudflare's same-name rules against the zone's
// other records: a CNAME cannot share its name with an A, AAAA or CNAME (and
// vice versa), NS records cannot share a name with anything else, and an
// identical record cannot be added twice.
func checkDNSConflicts(st *store, z *zoneRec, r DNSRecord) *apiError {
	for _, o := range st.dns {
		if o.zone != z.id || o.r.ID == r.ID || o.r.Name != r.Name {
			continue
		}
		other := o.r.Type
		switch {
		case r.Type == "CNAME" && (other == "A" || other == "AAAA" || other == "CNAME"):
			return newAPIError(http.StatusBadRequest, codeDNSCNAMEConflict,
				"An A, AAAA, or CNAME record with that host already exists. For more details, refer to <https://developers.cloudflare.com/dns/manage-dns-records/troubleshooting/records-with-same-name/>.")
		case (r.Type == "A" || r.Type == "AAAA") && other == "CNAME":
			return newAPIError(http.StatusBadRequest, codeDNSHasCNAME,
				"A CNAME record with that host already exists. For more details, refer to <https://developers.cloudflare.com/dns/manage-dns-records/troubleshooting/records-with-same-name/>.")
		case (r.Type == "NS") != (other == "NS") && r.Name != z.name:
			return newAPIError(http.StatusBadRequest, codeDNSNSConflict,
				"NS records cannot share a name with records of other types.")
		case r.Type == other && strings.EqualFold(r.Content, o.r.Content):
			return newAPIError(http.StatusBadRequest, codeDNSDuplicate, "Record already exists.")
		}
	}
	return nil
}
