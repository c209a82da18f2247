package control

import (
	"errors"
	"flag"
	"fmt"
	"time"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/services/control/internal/policy"
)

// LimitsConfig are the operator's quotas of every namespace and the cap of
// every inventory's history. The webhook refuses an object over one, and
// reconcile enforces them again (the webhook can be off); a namespace's
// KollectScope may only tighten them. Zero sets no limit. docs/operations.md
// (Limits) says how to size them.
type LimitsConfig struct {
	// InventoriesPerNamespace is the most KollectInventories a namespace
	// may hold.
	InventoriesPerNamespace int64
	// BindingsPerNamespace is the most sink bindings a namespace's
	// inventories may hold together.
	BindingsPerNamespace int64
	// ReplaysPerNamespace is the most KollectReplays of a namespace in
	// flight at once.
	ReplaysPerNamespace int64
	// HistoryMaxRevisions, HistoryMaxAge and HistoryMaxBytes cap every
	// inventory's spec.history, and the aggregator's defaults below it:
	// control writes the cap (the lower of it and the Scope's maxHistory)
	// into each inventory's config, and the aggregator applies it.
	HistoryMaxRevisions int64
	HistoryMaxAge       time.Duration
	HistoryMaxBytes     int64
}

// Defaults of LimitsConfig.
const (
	DefaultInventoriesPerNamespace = 50
	DefaultBindingsPerNamespace    = 200
	DefaultReplaysPerNamespace     = 4
	DefaultHistoryMaxRevisions     = 100
	DefaultHistoryMaxAge           = 720 * time.Hour
	DefaultHistoryMaxBytes         = 256 << 20
)

func defaultLimitsConfig() LimitsConfig {
	return LimitsConfig{
		InventoriesPerNamespace: DefaultInventoriesPerNamespace, BindingsPerNamespace: DefaultBindingsPerNamespace,
		ReplaysPerNamespace: DefaultReplaysPerNamespace, HistoryMaxRevisions: DefaultHistoryMaxRevisions,
		HistoryMaxAge: DefaultHistoryMaxAge, HistoryMaxBytes: DefaultHistoryMaxBytes,
	}
}

func (l *LimitsConfig) bindFlags(fs *flag.FlagSet) {
	fs.Int64Var(&l.InventoriesPerNamespace, policy.FlagMaxInventories, l.InventoriesPerNamespace,
		"Most KollectInventories a namespace may hold; over it the newest are refused (a KollectScope's maxInventories may lower it). 0 is unlimited.")
	fs.Int64Var(&l.BindingsPerNamespace, policy.FlagMaxBindings, l.BindingsPerNamespace,
		"Most sink bindings a namespace's KollectInventories may hold together (a KollectScope's maxBindings may lower it). 0 is unlimited.")
	fs.Int64Var(&l.ReplaysPerNamespace, policy.FlagMaxReplays, l.ReplaysPerNamespace,
		"Most KollectReplays of a namespace in flight at once; the webhook refuses more, and more admitted without it wait Pending (a KollectScope's maxReplays may lower it). 0 is unlimited.")
	fs.Int64Var(&l.HistoryMaxRevisions, policy.FlagHistoryMaxRevisions, l.HistoryMaxRevisions,
		"Cap of every inventory's spec.history.revisions and of the aggregator's default (a KollectScope's maxHistory may lower it). 0 is no cap.")
	fs.DurationVar(&l.HistoryMaxAge, policy.FlagHistoryMaxAge, l.HistoryMaxAge,
		"Cap of every inventory's spec.history.maxAge and of the aggregator's default (a KollectScope's maxHistory may lower it). 0 is no cap.")
	fs.Int64Var(&l.HistoryMaxBytes, policy.FlagHistoryMaxBytes, l.HistoryMaxBytes,
		"Cap in bytes of every inventory's spec.history.maxBytes and of the aggregator's default (a KollectScope's maxHistory may lower it). 0 is no cap.")
}

// validate refuses a negative limit.
func (l LimitsConfig) validate() error {
	var errs []error
	for _, f := range []struct {
		flag string
		v    int64
	}{{policy.FlagMaxInventories, l.InventoriesPerNamespace}, {policy.FlagMaxBindings, l.BindingsPerNamespace},
		{policy.FlagMaxReplays, l.ReplaysPerNamespace}, {policy.FlagHistoryMaxRevisions, l.HistoryMaxRevisions},
		{policy.FlagHistoryMaxAge, int64(l.HistoryMaxAge)}, {policy.FlagHistoryMaxBytes, l.HistoryMaxBytes}} {
		if f.v < 0 {
			errs = append(errs, fmt.Errorf("--%s: must not be negative", f.flag))
		}
	}
	return errors.Join(errs...)
}

func (l LimitsConfig) quotas() policy.Quotas {
	return policy.Quotas{Inventories: l.InventoriesPerNamespace, Bindings: l.BindingsPerNamespace, Replays: l.ReplaysPerNamespace,
		History: busv1.HistoryLimits{Revisions: l.HistoryMaxRevisions, MaxAge: busv1.Duration{Duration: l.HistoryMaxAge}, MaxBytes: l.HistoryMaxBytes}}
}
