package extract

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/checker"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/ext"
	"github.com/google/cel-go/interpreter"
)

// celVar is the one variable a cel: expression sees: the whole object, as dyn.
const celVar = "object"

// celAssumedMaxSize bounds every list, map and string of the object when estimating an
// expression's worst-case cost at compile time. Objects are not schema-typed here, so without a
// bound every comprehension would look unbounded. With 256, two nested comprehensions
// (containers × ports) pass under the default limit and three are rejected; the runtime cost
// limit guards objects that are larger than assumed.
const celAssumedMaxSize = 256

// celInterruptCheck is how many comprehension iterations pass between timeout checks.
const celInterruptCheck = 100

// celEnv is built once: it is immutable and safe for concurrent use.
var celEnv = sync.OnceValues(func() (*cel.Env, error) {
	reg, err := types.NewRegistry()
	if err != nil {
		return nil, err
	}
	return cel.NewEnv(
		cel.CustomTypeProvider(reg),
		cel.CustomTypeAdapter(jsonAdapter{reg}),
		cel.Variable(celVar, cel.DynType),
		cel.OptionalTypes(),
		cel.CrossTypeNumericComparisons(true),
		cel.DefaultUTCTimeZone(true),
		ext.Strings(),
		ext.Lists(),
		ext.Sets(),
		ext.Math(),
		ext.Encoders(),
	)
})

// celExpr is one compiled cel: path.
type celExpr struct {
	prg     cel.Program
	timeout time.Duration // 0: cost bounded whatever the object, no runtime tracking
}

// compileCEL parses, type-checks and plans src once, checking its result type against t and
// its estimated worst-case cost against the limit.
func compileCEL(src string, t Type, o Options) (*celExpr, *cel.Ast, error) {
	return compileCELAt(src, 0, t, o)
}

// compileCELAt compiles src, which starts at column offset of what the user wrote (after a
// "cel:" prefix), so error locations point into the user's text.
func compileCELAt(src string, offset int, t Type, o Options) (*celExpr, *cel.Ast, error) {
	env, err := celEnv()
	if err != nil {
		return nil, nil, fmt.Errorf("build CEL environment: %w", err)
	}
	ast, iss := env.Compile(src)
	if iss.Err() != nil {
		msgs := make([]string, 0, len(iss.Errors()))
		for _, e := range iss.Errors() {
			col := e.Location.Column() + 1
			if e.Location.Line() == 1 {
				col += offset
			}
			msgs = append(msgs, fmt.Sprintf("%d:%d: %s", e.Location.Line(), col, e.Message))
		}
		return nil, nil, fmt.Errorf("invalid CEL: %s", strings.Join(msgs, "; "))
	}
	if err := checkCELOutput(ast.OutputType(), t); err != nil {
		return nil, nil, err
	}
	opts, err := costOptions(env, ast, o.celCostLimit())
	if err != nil {
		return nil, nil, err
	}
	c := &celExpr{}
	if len(opts) > 0 {
		c.timeout = o.celTimeout()
		opts = append(opts, cel.InterruptCheckFrequency(celInterruptCheck))
	}
	c.prg, err = env.Program(ast, append(opts, cel.EvalOptions(cel.OptOptimize))...)
	if err != nil {
		return nil, nil, fmt.Errorf("plan CEL: %w", err)
	}
	return c, ast, nil
}

// costOptions checks the estimated worst-case cost and returns the runtime cost limit option.
// When the estimate stays within the limit whatever the object's sizes, the expression cannot
// exceed the limit at run time, and runtime cost tracking (which wraps every step of the
// evaluation) is left out.
func costOptions(env *cel.Env, ast *cel.Ast, limit uint64) ([]cel.ProgramOption, error) {
	unbounded, err := env.EstimateCost(ast, unboundedEstimator{})
	if err != nil {
		return nil, fmt.Errorf("estimate CEL cost: %w", err)
	}
	if unbounded.Max <= limit {
		return nil, nil
	}
	est, err := env.EstimateCost(ast, sizeEstimator{})
	if err != nil {
		return nil, fmt.Errorf("estimate CEL cost: %w", err)
	}
	if est.Max > limit {
		return nil, fmt.Errorf("estimated worst-case CEL cost %d exceeds the limit %d (lists, maps and strings assumed up to %d elements)", est.Max, limit, celAssumedMaxSize)
	}
	return []cel.ProgramOption{cel.CostLimit(limit)}, nil
}

// checkCELOutput rejects expressions whose static result type can never satisfy t.
func checkCELOutput(out *cel.Type, t Type) error {
	if out.Kind() == types.OpaqueKind && out.TypeName() == "optional_type" && len(out.Parameters()) == 1 {
		out = out.Parameters()[0]
	}
	switch out.Kind() {
	case types.DynKind, types.AnyKind, types.NullTypeKind, types.ErrorKind, types.TypeParamKind:
		return nil
	}
	ok := true
	switch t {
	case TypeString:
		ok = out.Kind() == types.StringKind
	case TypeInt, TypeFloat:
		ok = out.Kind() == types.IntKind || out.Kind() == types.UintKind || out.Kind() == types.DoubleKind
	case TypeBool:
		ok = out.Kind() == types.BoolKind
	case TypeMap:
		ok = out.Kind() == types.MapKind
	}
	if !ok {
		return fmt.Errorf("CEL expression yields %s, want %s", out, t)
	}
	return nil
}

// eval runs the program. found is false for a null or empty optional result and for a missing
// key or index ("no such key", "index out of bounds"), which is how CEL reports absent fields.
func (c *celExpr) eval(act interpreter.Activation) (any, bool, error) {
	var v ref.Val
	var err error
	if c.timeout == 0 {
		v, _, err = c.prg.Eval(act)
	} else {
		ctx, cancel := context.WithTimeout(context.Background(), c.timeout)
		v, _, err = c.prg.ContextEval(ctx, act)
		cancel()
	}
	if err != nil {
		var red *redactedError
		if errors.As(err, &red) {
			return Redacted(red.reason), true, nil
		}
		msg := err.Error()
		if strings.HasPrefix(msg, "no such key") || strings.HasPrefix(msg, "index out of bounds") {
			return nil, false, nil
		}
		return nil, false, celEvalError(msg)
	}
	return celToNative(v)
}

// objectActivation binds the object variable without copying or wrapping the object: CEL's
// attribute resolution reads map[string]any natively.
type objectActivation struct {
	object map[string]any
}

// ResolveName implements interpreter.Activation.
func (a *objectActivation) ResolveName(name string) (any, bool) {
	if name == celVar {
		return a.object, true
	}
	return nil, false
}

// Parent implements interpreter.Activation.
func (a *objectActivation) Parent() interpreter.Activation { return nil }

// sizeEstimator gives every value of unknown size the assumed maximum.
type sizeEstimator struct{}

// EstimateSize implements checker.CostEstimator.
func (sizeEstimator) EstimateSize(checker.AstNode) *checker.SizeEstimate {
	return &checker.SizeEstimate{Min: 0, Max: celAssumedMaxSize}
}

// EstimateCallCost implements checker.CostEstimator: the library's own estimates apply.
func (sizeEstimator) EstimateCallCost(string, string, *checker.AstNode, []checker.AstNode) *checker.CallEstimate {
	return nil
}

// unboundedEstimator leaves sizes unknown: CEL then assumes the largest possible.
type unboundedEstimator struct{}

// EstimateSize implements checker.CostEstimator.
func (unboundedEstimator) EstimateSize(checker.AstNode) *checker.SizeEstimate { return nil }

// EstimateCallCost implements checker.CostEstimator.
func (unboundedEstimator) EstimateCallCost(string, string, *checker.AstNode, []checker.AstNode) *checker.CallEstimate {
	return nil
}
