package extract

import (
	"fmt"
	"strconv"
	"strings"
)

// filter parses "?(@.a.b == literal)" after '['. Other operators, existence tests and
// comparisons between two paths are left to the fallback.
func (p *parser) filter() (step, error) {
	p.pos++ // '?'
	if p.peek() != '(' {
		return step{}, p.errorf("expected '(' after '?'")
	}
	p.pos++
	p.spaces()
	if p.peek() != '@' {
		return step{}, fmt.Errorf("%w: filter not starting with @", errUnsupported)
	}
	p.pos++
	f := &filter{}
	for p.peek() == '.' || p.peek() == '[' {
		s, err := p.step()
		if err != nil {
			return step{}, err
		}
		if s.kind != stepField {
			return step{}, fmt.Errorf("%w: filter operand beyond plain fields", errUnsupported)
		}
		f.path = append(f.path, s.name)
	}
	p.spaces()
	switch {
	case strings.HasPrefix(p.in[p.pos:], "=="):
	case strings.HasPrefix(p.in[p.pos:], "!="):
		f.negate = true
	default:
		return step{}, fmt.Errorf("%w: filter operator other than == and !=", errUnsupported)
	}
	if len(f.path) == 0 {
		return step{}, fmt.Errorf("%w: filter comparing @ itself", errUnsupported)
	}
	p.pos += 2
	p.spaces()
	lit, err := p.literal()
	if err != nil {
		return step{}, err
	}
	f.literal = lit
	p.spaces()
	if p.peek() != ')' {
		return step{}, p.errorf("expected ')' closing the filter")
	}
	p.pos++
	return step{kind: stepFilter, filter: f}, nil
}

func (p *parser) spaces() {
	for p.peek() == ' ' || p.peek() == '\t' {
		p.pos++
	}
}

// literal reads the right-hand side of a filter: a quoted string, a number or a boolean,
// typed exactly as client-go's parser types them (int, float64, bool, string).
func (p *parser) literal() (any, error) {
	c := p.peek()
	switch {
	case c == '\'' || c == '"':
		return p.quoted()
	case c == '+' || c == '-' || (c >= '0' && c <= '9'):
		start := p.pos
		p.pos++
		for c := p.peek(); c == '.' || (c >= '0' && c <= '9'); c = p.peek() {
			p.pos++
		}
		text := p.in[start:p.pos]
		if i, err := strconv.Atoi(text); err == nil {
			return i, nil
		}
		if f, err := strconv.ParseFloat(text, 64); err == nil {
			return f, nil
		}
		return nil, p.errorf("cannot parse number %q", text)
	case strings.HasPrefix(p.in[p.pos:], "true"):
		p.pos += 4
		return true, nil
	case strings.HasPrefix(p.in[p.pos:], "false"):
		p.pos += 5
		return false, nil
	}
	return nil, fmt.Errorf("%w: filter operand that is not a literal", errUnsupported)
}
