package extract

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"k8s.io/client-go/util/jsonpath"
)

// A jsonPath is a JSONPath compiled into steps; evaluation walks the steps and never parses.
// It covers fields, quoted keys, indexes, [*] and .* wildcards, ".." followed by a name, and
// filters comparing a relative path with a literal by == or !=. Everything else client-go's
// JSONPath understands is handled by fallbackPath.
type jsonPath struct {
	steps []step
	multi bool // a wildcard, ".." or filter: the result is always a list
}

type stepKind uint8

const (
	stepField   stepKind = iota // .name or ['name']
	stepIndex                   // [n], negative counts from the end
	stepEach                    // [*]: every element of a list
	stepAll                     // .*: every value of a map (sorted keys) or list
	stepDescend                 // ..name: every "name" key at any depth, pre-order
	stepFilter                  // [?(@.a.b == literal)]
)

type step struct {
	kind   stepKind
	name   string
	index  int
	filter *filter
}

// filter compares the value at a relative path with a literal, as kubectl does.
type filter struct {
	path    []string
	negate  bool
	literal any // string, int, float64 or bool, as client-go's parser produces them
}

// errUnsupported marks valid JSONPath outside the compiled subset.
var errUnsupported = errors.New("outside the compiled subset")

// parseJSONPath compiles "$.a.b" or "{.a.b}". It returns errUnsupported (wrapped) for syntax
// the fallback evaluator should handle.
func parseJSONPath(text string) (*jsonPath, error) {
	expr, err := jsonPathBody(text)
	if err != nil {
		return nil, err
	}
	p := &parser{in: expr}
	if p.peek() == '$' || p.peek() == '@' {
		p.pos++
	}
	jp := &jsonPath{}
	for !p.done() {
		s, err := p.step()
		if err != nil {
			return nil, err
		}
		if s.kind != stepField && s.kind != stepIndex {
			jp.multi = true
		}
		jp.steps = append(jp.steps, s)
	}
	return jp, nil
}

// jsonPathBody strips the kubectl braces. Templates with text or several actions are rejected:
// an attribute is one value.
func jsonPathBody(text string) (string, error) {
	if strings.HasPrefix(text, "$") {
		return text, nil
	}
	if !strings.HasPrefix(text, "{") || !strings.HasSuffix(text, "}") || len(text) < 2 {
		return "", errors.New(`a JSONPath starts with "$" or is one kubectl-style "{...}" expression`)
	}
	body := text[1 : len(text)-1]
	if depthOutsideQuotes(body) != 0 {
		return "", errors.New(`a kubectl-style path must be exactly one "{...}" expression, without text or range`)
	}
	return body, nil
}

// depthOutsideQuotes returns non-zero when body holds braces outside quoted strings.
func depthOutsideQuotes(body string) int {
	var quote byte
	for i := 0; i < len(body); i++ {
		c := body[i]
		switch {
		case quote != 0 && c == '\\':
			i++
		case quote != 0 && c == quote:
			quote = 0
		case quote != 0:
		case c == '"' || c == '\'':
			quote = c
		case c == '{' || c == '}':
			return 1
		}
	}
	return 0
}

type parser struct {
	in  string
	pos int
}

func (p *parser) done() bool { return p.pos >= len(p.in) }

func (p *parser) peek() byte {
	if p.done() {
		return 0
	}
	return p.in[p.pos]
}

func (p *parser) errorf(format string, args ...any) error {
	return fmt.Errorf("at offset %d: %s", p.pos, fmt.Sprintf(format, args...))
}

func (p *parser) step() (step, error) {
	switch {
	case strings.HasPrefix(p.in[p.pos:], ".."):
		p.pos += 2
		return p.descend()
	case p.peek() == '.':
		p.pos++
		if p.peek() == '*' {
			p.pos++
			return step{kind: stepAll}, nil
		}
		name, err := p.name()
		return step{kind: stepField, name: name}, err
	case p.peek() == '[':
		return p.bracket()
	}
	return step{}, p.errorf("unexpected %q", p.peek())
}

func (p *parser) descend() (step, error) {
	if p.peek() == '[' {
		s, err := p.bracket()
		if err == nil && s.kind != stepField {
			err = fmt.Errorf("%w: '..' followed by %s", errUnsupported, "an index, wildcard or filter")
		}
		return step{kind: stepDescend, name: s.name}, err
	}
	if p.peek() == '*' {
		return step{}, fmt.Errorf("%w: '..*'", errUnsupported)
	}
	name, err := p.name()
	return step{kind: stepDescend, name: name}, err
}

// name reads a dotted field name. A backslash escapes the next character (kubectl's "\.").
func (p *parser) name() (string, error) {
	var b strings.Builder
	start := p.pos
	for !p.done() {
		c := p.in[p.pos]
		if c == '\\' && p.pos+1 < len(p.in) {
			b.WriteByte(p.in[p.pos+1])
			p.pos += 2
			continue
		}
		if strings.IndexByte(".[]$@{}, \t\r\n()=!<>'\"", c) >= 0 {
			break
		}
		b.WriteByte(c)
		p.pos++
	}
	if p.pos == start {
		return "", p.errorf("expected a field name")
	}
	return b.String(), nil
}

func (p *parser) bracket() (step, error) {
	p.pos++ // '['
	var s step
	var err error
	switch c := p.peek(); {
	case c == '*':
		p.pos++
		s = step{kind: stepEach}
	case c == '\'' || c == '"':
		s.kind = stepField
		s.name, err = p.quoted()
	case c == '?':
		s, err = p.filter()
	case c == '-' || (c >= '0' && c <= '9'):
		s, err = p.index()
	case c == ':':
		return s, fmt.Errorf("%w: slice", errUnsupported)
	default:
		return s, p.errorf("invalid subscript")
	}
	if err != nil {
		return s, err
	}
	if p.peek() != ']' {
		return s, p.unsupportedOrSyntax("expected ']'")
	}
	p.pos++
	return s, nil
}

// unsupportedOrSyntax classifies a bracket we cannot finish: slices and unions are valid
// JSONPath for the fallback, anything else is a syntax error.
func (p *parser) unsupportedOrSyntax(msg string) error {
	if c := p.peek(); c == ':' || c == ',' {
		return fmt.Errorf("%w: slice or union", errUnsupported)
	}
	return p.errorf("%s", msg)
}

func (p *parser) index() (step, error) {
	start := p.pos
	if p.peek() == '-' {
		p.pos++
	}
	for c := p.peek(); c >= '0' && c <= '9'; c = p.peek() {
		p.pos++
	}
	n, err := strconv.Atoi(p.in[start:p.pos])
	if err != nil {
		return step{}, p.unsupportedOrSyntax("invalid index")
	}
	return step{kind: stepIndex, index: n}, nil
}

// quoted reads a '…' or "…" string with backslash escapes, the way kubectl unquotes them.
func (p *parser) quoted() (string, error) {
	q := p.in[p.pos]
	start := p.pos
	p.pos++
	for !p.done() {
		c := p.in[p.pos]
		p.pos++
		if c == '\\' {
			p.pos++
			continue
		}
		if c == q {
			s, err := jsonpath.UnquoteExtend(p.in[start:p.pos])
			if err != nil {
				return "", p.errorf("invalid quoted string: %v", err)
			}
			return s, nil
		}
	}
	return "", p.errorf("unterminated quoted string")
}
