package extract

// Predicate is a compiled CEL boolean over the variable `object`, such as a
// Target resource rule's matchPolicy. It shares the environment, cost limit
// and compiler of cel: attribute paths, and it evaluates on the same redacted
// view, so that whether an object matches never depends on a redacted value.
type Predicate struct {
	expr *celExpr
	view *viewer
}

// CompilePredicate compiles src, which must yield a bool, once. limit is the
// CEL cost limit (0 means DefaultCELCostLimit). The default redaction rules
// apply; see CompilePredicateOptions.
func CompilePredicate(src string, limit uint64) (*Predicate, error) {
	return CompilePredicateOptions(src, Options{CELCostLimit: limit})
}

// CompilePredicateOptions compiles src with the operator's options: CEL limits
// and redaction rules. On a core v1 Secret (by the object's apiVersion and
// kind) data, stringData and metadata.annotations are hidden.
func CompilePredicateOptions(src string, opts Options) (*Predicate, error) {
	e, ast, err := compileCEL(src, TypeBool, opts)
	if err != nil {
		return nil, err
	}
	fs := &FieldSet{}
	celViewFields(ast.NativeRep().Expr(), fs)
	v := newViewer(opts.Rules(), fs)
	v.secretKind = true
	return &Predicate{expr: e, view: v}, nil
}

// Match evaluates the predicate on obj. A missing field makes the predicate
// false rather than an error, as a selection rule over absent data should; so
// does a redacted one.
func (p *Predicate) Match(obj map[string]any) (bool, error) {
	v, found, err := p.expr.eval(&objectActivation{object: p.view.apply(obj)})
	if err != nil || !found {
		return false, err
	}
	b, ok := v.(bool)
	if !ok {
		return false, nil // the redaction marker
	}
	return b, nil
}
