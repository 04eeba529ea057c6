package cfsim

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"sync"
)

// IDGenerator mints identifiers and secrets. Cloudflare uses 32 lowercase hex
// digits for accounts, zones, DNS records and service tokens, and UUIDs for
// tunnels and most Access objects.
type IDGenerator interface {
	// Hex32 returns 32 lowercase hexadecimal digits.
	Hex32() string
	// UUID returns a lowercase RFC 4122 version 4 UUID.
	UUID() string
	// Secret returns 32 bytes of secret material.
	Secret() []byte
}

// RandomIDs returns the default generator, backed by crypto/rand.
func RandomIDs() IDGenerator { return randomIDs{} }

type randomIDs struct{}

func (randomIDs) Hex32() string { return hex.EncodeToString(randomBytes(16)) }

func (randomIDs) UUID() string { return formatUUID(randomBytes(16)) }

func (randomIDs) Secret() []byte { return randomBytes(32) }

func randomBytes(n int) []byte {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		// crypto/rand does not fail on supported platforms; a simulator
		// without entropy cannot do anything useful anyway.
		panic(fmt.Sprintf("cfsim: crypto/rand: %v", err))
	}
	return b
}

// formatUUID stamps the version-4 and RFC 4122 variant bits onto b so the
// result parses as a UUID in strict clients such as the Go SDK.
func formatUUID(b []byte) string {
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b)
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
}

// SequentialIDs returns a deterministic generator: the n-th ID of each kind
// encodes n, so tests can predict IDs and compare golden output.
func SequentialIDs() IDGenerator { return &sequentialIDs{} }

type sequentialIDs struct {
	mu              sync.Mutex
	hex, uuid, secr uint64
}

func (g *sequentialIDs) Hex32() string {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.hex++
	return fmt.Sprintf("%032x", g.hex)
}

func (g *sequentialIDs) UUID() string {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.uuid++
	return fmt.Sprintf("00000000-0000-4000-8000-%012x", g.uuid)
}

func (g *sequentialIDs) Secret() []byte {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.secr++
	b := make([]byte, 32)
	for i := range b {
		b[i] = byte(g.secr + uint64(i))
	}
	return b
}

// isHex32 reports whether s looks like a Cloudflare 32-hex identifier.
func isHex32(s string) bool {
	if len(s) != 32 {
		return false
	}
	for _, r := range s {
		if !(r >= '0' && r <= '9' || r >= 'a' && r <= 'f') {
			return false
		}
	}
	return true
}

// isUUID reports whether s is a canonical (lowercase or uppercase) UUID.
func isUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i, r := range s {
		switch i {
		case 8, 13, 18, 23:
			if r != '-' {
				return false
			}
		default:
			if !(r >= '0' && r <= '9' || r >= 'a' && r <= 'f' || r >= 'A' && r <= 'F') {
				return false
			}
		}
	}
	return true
}
