package postgres

import (
	"bytes"
	"slices"
	"unicode/utf16"
	"unicode/utf8"
)

// jsonbParser renders JSON as PostgreSQL's jsonb output prints it: object
// keys ordered by length, then bytes (the last of equal keys kept), ", "
// and ": " between items, strings escaped as escape_json does, numbers as
// numeric prints them. render returns false for input it does not render
// exactly as the server would (see hashSum): an exponent or negative zero,
// \u0000 or a lone surrogate (which jsonb refuses), invalid JSON.
//
// Its scratch space is kept per nesting depth and reused from row to row.
type jsonbParser struct {
	src   []byte
	i     int
	depth int
	// scratch[d] holds the decoded keys and rendered values of the object
	// being read at depth d, pairs[d] their offsets.
	scratch [][]byte
	pairs   [][]jsonbPair
}

// render renders src, which it then forgets (its scratch space stays).
func (p *jsonbParser) render(dst []byte) ([]byte, bool) {
	p.i, p.depth = 0, 0
	p.space()
	out, ok := p.value(dst)
	p.space()
	return out, ok && p.i == len(p.src)
}

func (p *jsonbParser) space() {
	for p.i < len(p.src) && (p.src[p.i] == ' ' || p.src[p.i] == '\t' || p.src[p.i] == '\n' || p.src[p.i] == '\r') {
		p.i++
	}
}

func (p *jsonbParser) value(b []byte) ([]byte, bool) {
	if p.i >= len(p.src) {
		return b, false
	}
	switch c := p.src[p.i]; {
	case c == '{':
		return p.object(b)
	case c == '[':
		return p.array(b)
	case c == '"':
		at := len(b)
		b, ok := p.str(b)
		if !ok {
			return b, false
		}
		return appendEscapedFrom(b, at), true
	case c == '-' || c >= '0' && c <= '9':
		return p.number(b)
	}
	for _, lit := range [...]string{"true", "false", "null"} {
		if bytes.HasPrefix(p.src[p.i:], []byte(lit)) {
			p.i += len(lit)
			return append(b, lit...), true
		}
	}
	return b, false
}

// jsonbPair is a key and its rendered value in an object's scratch space.
type jsonbPair struct{ ks, ke, vs, ve int }

func (p *jsonbParser) object(b []byte) ([]byte, bool) {
	p.i++ // {
	p.space()
	if p.i < len(p.src) && p.src[p.i] == '}' {
		p.i++
		return append(b, '{', '}'), true
	}
	d := p.depth
	if d == len(p.scratch) {
		p.scratch, p.pairs = append(p.scratch, nil), append(p.pairs, nil)
	}
	p.depth++
	defer func() { p.depth-- }()
	sc, pairs := p.scratch[d][:0], p.pairs[d][:0]
	ok := true
	for ok {
		p.space()
		if p.i >= len(p.src) || p.src[p.i] != '"' {
			return b, false
		}
		var pr jsonbPair
		pr.ks = len(sc)
		if sc, ok = p.str(sc); !ok {
			return b, false
		}
		pr.ke = len(sc)
		p.space()
		if p.i >= len(p.src) || p.src[p.i] != ':' {
			return b, false
		}
		p.i++
		p.space()
		pr.vs = len(sc)
		if sc, ok = p.value(sc); !ok {
			return b, false
		}
		pr.ve = len(sc)
		pairs = append(pairs, pr)
		p.space()
		if p.i >= len(p.src) {
			return b, false
		}
		if p.src[p.i] == '}' {
			p.i++
			break
		}
		ok = p.src[p.i] == ','
		p.i++
	}
	p.scratch[d], p.pairs[d] = sc, pairs
	if !ok {
		return b, false
	}
	key := func(x jsonbPair) []byte { return sc[x.ks:x.ke] }
	// Stable, so that of equal keys the last stays last: it is kept.
	slices.SortStableFunc(pairs, func(x, y jsonbPair) int {
		if lx, ly := x.ke-x.ks, y.ke-y.ks; lx != ly {
			return lx - ly
		}
		return bytes.Compare(key(x), key(y))
	})
	b = append(b, '{')
	first := true
	for i, pr := range pairs {
		if i+1 < len(pairs) && bytes.Equal(key(pairs[i+1]), key(pr)) {
			continue
		}
		if !first {
			b = append(b, ',', ' ')
		}
		first = false
		at := len(b)
		b = append(b, key(pr)...)
		b = appendEscapedFrom(b, at)
		b = append(b, ':', ' ')
		b = append(b, sc[pr.vs:pr.ve]...)
	}
	return append(b, '}'), true
}

func (p *jsonbParser) array(b []byte) ([]byte, bool) {
	p.i++ // [
	b = append(b, '[')
	p.space()
	if p.i < len(p.src) && p.src[p.i] == ']' {
		p.i++
		return append(b, ']'), true
	}
	for n := 0; ; n++ {
		if n > 0 {
			b = append(b, ',', ' ')
		}
		p.space()
		var ok bool
		if b, ok = p.value(b); !ok {
			return b, false
		}
		p.space()
		if p.i >= len(p.src) {
			return b, false
		}
		if p.src[p.i] == ']' {
			p.i++
			return append(b, ']'), true
		}
		if p.src[p.i] != ',' {
			return b, false
		}
		p.i++
	}
}

// number copies a JSON number that numeric prints as written: no
// exponent, not a negative zero.
func (p *jsonbParser) number(b []byte) ([]byte, bool) {
	start := p.i
	if p.src[p.i] == '-' {
		p.i++
	}
	nonzero := false
	digits := 0
	for p.i < len(p.src) {
		c := p.src[p.i]
		if c >= '0' && c <= '9' {
			digits++
			nonzero = nonzero || c != '0'
		} else if c != '.' {
			break
		}
		p.i++
	}
	if p.i < len(p.src) && (p.src[p.i] == 'e' || p.src[p.i] == 'E') || digits == 0 {
		return b, false
	}
	num := p.src[start:p.i]
	if num[0] == '-' && !nonzero || num[len(num)-1] == '.' {
		return b, false
	}
	return append(b, num...), true
}

// str appends the JSON string at p.i, decoded, to b.
func (p *jsonbParser) str(b []byte) ([]byte, bool) {
	p.i++ // "
	at := len(b)
	for p.i < len(p.src) {
		start := p.i
		for p.i < len(p.src) && p.src[p.i] != '"' && p.src[p.i] != '\\' && p.src[p.i] >= 0x20 {
			p.i++
		}
		b = append(b, p.src[start:p.i]...)
		if p.i >= len(p.src) {
			break
		}
		c := p.src[p.i]
		switch {
		case c == '"':
			p.i++
			return b, utf8.Valid(b[at:])
		case c < 0x20:
			return b, false
		}
		if p.i+1 >= len(p.src) {
			return b, false
		}
		e := p.src[p.i+1]
		p.i += 2
		switch e {
		case '"', '\\', '/':
			b = append(b, e)
		case 'b':
			b = append(b, '\b')
		case 'f':
			b = append(b, '\f')
		case 'n':
			b = append(b, '\n')
		case 'r':
			b = append(b, '\r')
		case 't':
			b = append(b, '\t')
		case 'u':
			r, ok := p.hex4()
			if !ok || r == 0 {
				return b, false
			}
			if utf16.IsSurrogate(r) {
				if p.i+1 >= len(p.src) || p.src[p.i] != '\\' || p.src[p.i+1] != 'u' {
					return b, false
				}
				p.i += 2
				r2, ok := p.hex4()
				if r = utf16.DecodeRune(r, r2); !ok || r == utf8.RuneError {
					return b, false
				}
			}
			b = utf8.AppendRune(b, r)
		default:
			return b, false
		}
	}
	return b, false
}

func (p *jsonbParser) hex4() (rune, bool) {
	if p.i+4 > len(p.src) {
		return 0, false
	}
	var r rune
	for _, c := range p.src[p.i : p.i+4] {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	p.i += 4
	return r, true
}

// appendEscapedFrom replaces b[at:], a decoded string, with its text in
// double quotes as escape_json writes it.
func appendEscapedFrom(b []byte, at int) []byte {
	n := 0
	for _, c := range b[at:] {
		if c < 0x20 || c == '"' || c == '\\' {
			n++
		}
	}
	if n == 0 {
		b = append(b, 0)
		copy(b[at+1:], b[at:])
		b[at] = '"'
		return append(b, '"')
	}
	s := string(b[at:]) // rare: a string with characters to escape
	b = append(b[:at], '"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\b':
			b = append(b, '\\', 'b')
		case '\f':
			b = append(b, '\\', 'f')
		case '\n':
			b = append(b, '\\', 'n')
		case '\r':
			b = append(b, '\\', 'r')
		case '\t':
			b = append(b, '\\', 't')
		case '"':
			b = append(b, '\\', '"')
		case '\\':
			b = append(b, '\\', '\\')
		default:
			if c < 0x20 {
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			} else {
				b = append(b, c)
			}
		}
	}
	return append(b, '"')
}

// skip moves past the JSON value at p.i without rendering it; false when
// it is not a well-nested value (strings are not validated: the server
// parses the value).
func (p *jsonbParser) skip() bool {
	depth := 0
	for p.i < len(p.src) {
		switch c := p.src[p.i]; c {
		case '"':
			p.i++
			for p.i < len(p.src) && p.src[p.i] != '"' {
				if p.src[p.i] == '\\' {
					p.i++
				}
				p.i++
			}
			if p.i >= len(p.src) {
				return false
			}
		case '{', '[':
			depth++
		case '}', ']':
			if depth--; depth < 0 {
				return false
			}
		case ',', ':', ' ', '\t', '\n', '\r':
			if depth == 0 {
				return true
			}
		}
		p.i++
		if depth == 0 && (p.i >= len(p.src) || p.src[p.i-1] == '"' || p.src[p.i-1] == '}' || p.src[p.i-1] == ']') {
			return true
		}
	}
	return depth == 0
}
