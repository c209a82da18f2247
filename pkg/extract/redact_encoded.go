package extract

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"io"
	"unicode/utf8"
)

// Bounds of the look inside encoded values: maxDecoded is the most text one
// value decodes to (a gzip stream that inflates past it is withheld whole,
// failing closed), maxDecodeDepth how many encodings are unwrapped (base64
// of gzip of JSON holding base64 is three), minEncoded the shortest string
// tried as base64 ("pw=x" is eight characters encoded).
const (
	maxDecoded     = 1 << 20
	maxDecodeDepth = 3
	minEncoded     = 8
)

// gzipMagic starts every gzip stream.
var gzipMagic = []byte{0x1f, 0x8b}

// sensitiveEncoded reports whether s is base64 or gzip whose decoded text
// holds anything the value detectors find, unwrapping nested encodings up to
// maxDecodeDepth. Tools store applied objects gzipped and base64-encoded in
// annotations, and ConfigMaps' binaryData is base64: without this, a
// password inside them passed as an opaque string.
func (r *Rules) sensitiveEncoded(s string) bool {
	if r.depth >= maxDecodeDepth {
		return false
	}
	text, ok, overflow := decodeValue(s)
	if overflow {
		return true
	}
	if !ok {
		return false
	}
	inner := *r
	inner.depth++
	return inner.sensitiveValue(text)
}

// decodeValue returns the text s encodes: s inflated when it is a gzip
// stream, else s decoded when it is base64 (standard or URL alphabet, padded
// or not) of a gzip stream or of printable UTF-8 text. ok is false when s is
// neither; overflow is true when a gzip stream inflates past maxDecoded.
func decodeValue(s string) (text string, ok, overflow bool) {
	if len(s) >= len(gzipMagic) && s[0] == gzipMagic[0] && s[1] == gzipMagic[1] {
		return gunzip([]byte(s))
	}
	if len(s) < minEncoded || len(s) > maxDecoded/3*4+4 || !base64Text(s) {
		return "", false, false
	}
	b, err := decodeBase64(s)
	if err != nil {
		return "", false, false
	}
	if bytes.HasPrefix(b, gzipMagic) {
		return gunzip(b)
	}
	if !printable(b) {
		return "", false, false
	}
	return string(b), true, false
}

// base64Text reports whether every byte of s is of a base64 alphabet, with
// "=" only at the end.
func base64Text(s string) bool {
	end := len(s)
	for end > 0 && s[end-1] == '=' {
		end--
	}
	if len(s)-end > 2 {
		return false
	}
	for i := 0; i < end; i++ {
		c := s[i]
		if !isBase64URL(c) && c != '+' && c != '/' {
			return false
		}
	}
	return true
}

// decodeBase64 decodes s with whichever of the four encodings fits it.
func decodeBase64(s string) ([]byte, error) {
	enc := base64.StdEncoding
	for i := 0; i < len(s); i++ {
		if s[i] == '-' || s[i] == '_' {
			enc = base64.URLEncoding
			break
		}
	}
	if len(s)%4 != 0 {
		enc = enc.WithPadding(base64.NoPadding)
	}
	return enc.DecodeString(s)
}

// gunzip inflates b up to maxDecoded bytes; overflow when it holds more.
// A corrupt or truncated stream yields what inflated before the damage.
func gunzip(b []byte) (text string, ok, overflow bool) {
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		return "", false, false
	}
	out, _ := io.ReadAll(io.LimitReader(zr, maxDecoded+1)) // the error keeps what was read
	if len(out) > maxDecoded {
		return "", false, true
	}
	return string(out), len(out) > 0, false
}

// printable reports whether b is UTF-8 text without control characters but
// tabs and line breaks: random bytes (a hash, an image) are not looked at.
func printable(b []byte) bool {
	if !utf8.Valid(b) {
		return false
	}
	for _, c := range b {
		if (c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7f {
			return false
		}
	}
	return true
}
