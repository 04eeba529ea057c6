// Package promtext serves the operators' metrics in the Prometheus text
// exposition format (version 0.0.4) with the Prometheus Go client library
// (github.com/prometheus/client_golang): WriteRegistry writes a registry's
// families, and Runtime holds the go_*, process_* and cfzt_build_info
// series both operator modes serve after their own.
package promtext
