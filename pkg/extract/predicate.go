package extract

import (
	"fmt"
)

// Predicate is a compiled CEL boolean over the variable `object`, such as a
// Target resource rule's matchPolicy. It shares the environment, cost limit
// and compiler of cel: attribute paths.
type Predicate struct {
	expr *celExpr
}

// CompilePredicate compiles src, which must yield a bool, once. limit is the
// CEL cost limit (0 means DefaultCELCostLimit).
func CompilePredicate(src string, limit uint64) (*Predicate, error) {
	e, _, err := compileCEL(src, TypeBool, Options{CELCostLimit: limit})
	if err != nil {
		return nil, err
	}
	return &Predicate{expr: e}, nil
}

// Match evaluates the predicate on obj. A missing field makes the predicate
// false rather than an error, as a selection rule over absent data should.
func (p *Predicate) Match(obj map[string]any) (bool, error) {
	v, found, err := p.expr.eval(&objectActivation{object: obj})
	if err != nil || !found {
		return false, err
	}
	b, ok := v.(bool)
	if !ok {
		return false, fmt.Errorf("matchPolicy yields %T, want bool", v)
	}
	return b, nil
}
