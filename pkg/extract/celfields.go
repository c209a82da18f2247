package extract

import (
	"slices"

	"github.com/google/cel-go/common/ast"
	"github.com/google/cel-go/common/operators"
	"github.com/google/cel-go/common/overloads"
	"github.com/google/cel-go/common/types"
)

// celFields adds to fs the object paths expression e reads: every maximal chain of field
// selections (and constant string indexes) rooted at the object variable. Any other use of
// the variable (passing it to a function, iterating it) needs the whole object.
func celFields(e ast.Expr, fs *FieldSet) { collectCELFields(e, fs, false) }

// celViewFields is celFields for the redacted view: size() of a path needs the value's
// length, not its contents, so the view only touches it (redaction never changes a list's
// length or a map's keys, and a redacted string is replaced whole).
func celViewFields(e ast.Expr, fs *FieldSet) { collectCELFields(e, fs, true) }

func collectCELFields(e ast.Expr, fs *FieldSet, view bool) {
	if path, ok := objectPath(e); ok {
		fs.Insert(path...)
		return
	}
	if view {
		if path, ok := sizeOfPath(e); ok {
			fs.touch(path...)
			return
		}
	}
	celFields := func(e ast.Expr, fs *FieldSet) { collectCELFields(e, fs, view) }
	switch e.Kind() {
	case ast.IdentKind:
		if e.AsIdent() == celVar {
			fs.Insert()
		}
	case ast.SelectKind:
		celFields(e.AsSelect().Operand(), fs)
	case ast.CallKind:
		c := e.AsCall()
		if c.IsMemberFunction() {
			celFields(c.Target(), fs)
		}
		for _, a := range c.Args() {
			celFields(a, fs)
		}
	case ast.ListKind:
		for _, el := range e.AsList().Elements() {
			celFields(el, fs)
		}
	case ast.MapKind:
		for _, en := range e.AsMap().Entries() {
			celFields(en.AsMapEntry().Key(), fs)
			celFields(en.AsMapEntry().Value(), fs)
		}
	case ast.StructKind:
		for _, f := range e.AsStruct().Fields() {
			celFields(f.AsStructField().Value(), fs)
		}
	case ast.ComprehensionKind:
		c := e.AsComprehension()
		for _, x := range []ast.Expr{c.IterRange(), c.AccuInit(), c.LoopCondition(), c.LoopStep(), c.Result()} {
			celFields(x, fs)
		}
	}
}

// sizeOfPath returns the path of size(path) or path.size().
func sizeOfPath(e ast.Expr) ([]string, bool) {
	if e.Kind() != ast.CallKind {
		return nil, false
	}
	c := e.AsCall()
	if c.FunctionName() != overloads.Size {
		return nil, false
	}
	switch {
	case c.IsMemberFunction() && len(c.Args()) == 0:
		return objectPath(c.Target())
	case !c.IsMemberFunction() && len(c.Args()) == 1:
		return objectPath(c.Args()[0])
	}
	return nil, false
}

// objectPath returns the path of a selection chain rooted at the object variable, such as
// object.metadata.labels["app"] or object.?spec.replicas.
func objectPath(e ast.Expr) ([]string, bool) {
	var rev []string
	for {
		switch e.Kind() {
		case ast.SelectKind:
			s := e.AsSelect()
			rev = append(rev, s.FieldName())
			e = s.Operand()
		case ast.CallKind:
			c := e.AsCall()
			name := c.FunctionName()
			if (name != operators.Index && name != operators.OptIndex && name != operators.OptSelect) || len(c.Args()) != 2 {
				return nil, false
			}
			key := c.Args()[1]
			if key.Kind() != ast.LiteralKind {
				return nil, false
			}
			s, ok := key.AsLiteral().(types.String)
			if !ok {
				return nil, false
			}
			rev = append(rev, string(s))
			e = c.Args()[0]
		case ast.IdentKind:
			if e.AsIdent() != celVar {
				return nil, false
			}
			slices.Reverse(rev)
			return rev, true
		default:
			return nil, false
		}
	}
}
