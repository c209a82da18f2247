package bus

import (
	"errors"
	"fmt"
	"strings"
)

// EmptyToken is the token of the empty string: the namespace of a
// cluster-scoped object (ClusterTarget, ClusterInventory). No other string
// encodes to it, because escapes use upper-case hex digits only.
const EmptyToken = "=cluster"

const upperHex = "0123456789ABCDEF"

// ErrInvalidToken is returned (wrapped) when a token is not an output of
// EncodeToken.
var ErrInvalidToken = errors.New("invalid token")

// EncodeToken encodes s as a token valid both in a NATS subject and in a KV
// key. It never fails.
func EncodeToken(s string) string {
	if s == "" {
		return EmptyToken
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case isLiteral(c):
			b.WriteByte(c)
		case c == '.':
			b.WriteByte('_')
		default:
			b.WriteByte('=')
			b.WriteByte(upperHex[c>>4])
			b.WriteByte(upperHex[c&0x0f])
		}
	}
	return b.String()
}

// DecodeToken inverts EncodeToken. It rejects any token EncodeToken cannot
// produce, so that each string has exactly one token.
func DecodeToken(tok string) (string, error) {
	if tok == EmptyToken {
		return "", nil
	}
	if tok == "" {
		return "", fmt.Errorf("%w: empty", ErrInvalidToken)
	}
	var b strings.Builder
	b.Grow(len(tok))
	for i := 0; i < len(tok); i++ {
		c := tok[i]
		switch {
		case isLiteral(c):
			b.WriteByte(c)
		case c == '_':
			b.WriteByte('.')
		case c == '=':
			v, ok := unhex(tok, i+1)
			if !ok || isLiteral(v) || v == '.' {
				return "", fmt.Errorf("%w %q: bad escape at byte %d", ErrInvalidToken, tok, i)
			}
			b.WriteByte(v)
			i += 2
		default:
			return "", fmt.Errorf("%w %q: byte %q at %d", ErrInvalidToken, tok, c, i)
		}
	}
	return b.String(), nil
}

func isLiteral(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-'
}

// unhex reads two upper-case hex digits at tok[i:i+2].
func unhex(tok string, i int) (byte, bool) {
	if i+2 > len(tok) {
		return 0, false
	}
	hi, lo := strings.IndexByte(upperHex, tok[i]), strings.IndexByte(upperHex, tok[i+1])
	if hi < 0 || lo < 0 {
		return 0, false
	}
	return byte(hi<<4 | lo), true //nolint:gosec // G115: hi and lo are hex digit indexes, 0..15
}
