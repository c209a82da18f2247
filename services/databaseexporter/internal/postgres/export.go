package postgres

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/jackc/pgx/v5"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/failpoint"
	"kollect.dev/kollect/pkg/sink"
)

// errUnchanged rolls back an export that has nothing to apply: an older
// revision, or the revision and checksum already stored.
var errUnchanged = errors.New("nothing to apply")

// errNeedsFull rolls back a delta export whose base the table does not hold
// while the snapshot's items are not loaded: they are loaded outside the
// transaction and the export is run again as a full one.
var errNeedsFull = errors.New("the delta does not apply: the full snapshot is needed")

// scope is the (cluster, inventory) every statement of an export is
// restricted to, and the export it applies.
type scope struct {
	cluster, namespace, name string
	revision                 int64
	checksum                 string
	previous                 string // the envelope's previousChecksum
	itemCount                int
	exportedAt               time.Time
}

// args returns the scope's key as the first three statement parameters.
func (s scope) args(more ...any) []any {
	return append([]any{s.cluster, s.namespace, s.name}, more...)
}

// stored is the state row of an inventory; revision -1 when there was none.
type stored struct {
	revision int64
	checksum string
}

func (k *Sink) export(ctx context.Context, s sink.Snapshot, delta bool) error {
	env := &s.Envelope
	op := fmt.Sprintf("write %s/%s of cluster %s to postgres table %s", env.Inventory.Namespace, env.Inventory.Name, env.Cluster, k.t)
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	if env.Revision > math.MaxInt64 {
		return sink.Permanent(fmt.Errorf("%s: revision %d does not fit a bigint", op, env.Revision))
	}
	sc := scope{cluster: env.Cluster, namespace: env.Inventory.Namespace, name: env.Inventory.Name,
		revision: int64(env.Revision), checksum: env.Checksum, previous: env.PreviousChecksum, itemCount: env.ItemCount, exportedAt: env.ExportedAt.UTC()}
	if err := k.provision(ctx); err != nil {
		return classify(ctx, op, err, k.mode)
	}
	err := pgx.BeginFunc(ctx, k.pool, func(tx pgx.Tx) error { return k.apply(ctx, tx, sc, s, delta) })
	if errors.Is(err, errNeedsFull) {
		if s, err = s.WithFull(ctx); err != nil {
			return fmt.Errorf("%s: %w", op, err)
		}
		err = pgx.BeginFunc(ctx, k.pool, func(tx pgx.Tx) error { return k.apply(ctx, tx, sc, s, false) })
	}
	if errors.Is(err, errUnchanged) {
		return nil
	}
	if isMissing(err) {
		k.forgetProvisioning()
	}
	return classify(ctx, op, err, k.mode)
}

// apply runs inside the export's transaction.
func (k *Sink) apply(ctx context.Context, tx pgx.Tx, sc scope, s sink.Snapshot, delta bool) error {
	st, err := k.lockState(ctx, tx, sc)
	if err != nil {
		return err
	}
	if s.Deleted {
		if err := k.deleteInventory(ctx, tx, sc); err != nil || !k.t.withHistory {
			return err
		}
		return k.recordHistory(ctx, tx, sc)
	}
	// A backfill's first revision rewinds the history to before it, so the
	// backfill rebuilds it forward from there (see Snapshot.BackfillStart).
	rewound := s.BackfillStart && k.t.withHistory
	if rewound {
		if err := k.rewindHistory(ctx, tx, sc); err != nil {
			return err
		}
	}
	if st.revision > sc.revision && !s.Replay {
		return errUnchanged
	}
	if st.revision == sc.revision && st.checksum == sc.checksum && !s.Repair && !rewound {
		return errUnchanged
	}
	d := s.Delta
	switch {
	case delta && d != nil && d.BaseRevision <= math.MaxInt64 && st.revision == int64(d.BaseRevision) && st.checksum == d.BaseChecksum:
		err = k.applyHashedDelta(ctx, tx, sc, d)
	case !s.Loaded() && s.Stream == nil:
		return errNeedsFull
	default:
		err = k.applyFull(ctx, tx, sc, s)
	}
	if err != nil {
		return err
	}
	// A replay of an older revision rewrites the rows but not the history,
	// which records each revision once, in order; a rewound one records it.
	if k.t.withHistory && (st.revision <= sc.revision || rewound) {
		if err := k.recordHistory(ctx, tx, sc); err != nil {
			return err
		}
	}
	_, err = tx.Exec(ctx, `UPDATE `+k.t.state+` SET revision = $4, checksum = $5, item_count = $6, exported_at = $7
WHERE cluster = $1 AND inventory_namespace = $2 AND inventory_name = $3`,
		sc.args(sc.revision, sc.checksum, sc.itemCount, sc.exportedAt)...)
	if err != nil {
		return fmt.Errorf("record revision %d: %w", sc.revision, err)
	}
	failpoint.Hit("postgres.beforeCommit") // rows and state written, the transaction open
	return nil
}

// applyHashedDelta applies d and keeps the rows hash up to date.
func (k *Sink) applyHashedDelta(ctx context.Context, tx pgx.Tx, sc scope, d *busv1.Delta) error {
	upserts, all := deltaKeys(d)
	if err := k.adjustHash(ctx, tx, sc, "-", all); err != nil {
		return err
	}
	if err := k.applyDelta(ctx, tx, sc, d); err != nil {
		return err
	}
	return k.adjustHash(ctx, tx, sc, "+", upserts)
}

// lockState returns the inventory's state row, locked until the
// transaction ends; a missing row is inserted (revision -1) so that two
// writers of one inventory serialise on it.
func (k *Sink) lockState(ctx context.Context, tx pgx.Tx, sc scope) (stored, error) {
	var st stored
	err := tx.QueryRow(ctx, `INSERT INTO `+k.t.state+` AS st
  (cluster, inventory_namespace, inventory_name, revision, checksum, item_count, exported_at)
VALUES ($1, $2, $3, -1, '', 0, $4)
ON CONFLICT (cluster, inventory_namespace, inventory_name) DO UPDATE SET revision = st.revision
RETURNING revision, checksum`, sc.args(sc.exportedAt)...).Scan(&st.revision, &st.checksum)
	if err != nil {
		return st, fmt.Errorf("lock the state row: %w", err)
	}
	return st, nil
}

// deleteInventory removes the inventory's rows and its state row.
func (k *Sink) deleteInventory(ctx context.Context, tx pgx.Tx, sc scope) error {
	if _, err := tx.Exec(ctx, `DELETE FROM `+k.t.rows+` WHERE cluster = $1 AND inventory_namespace = $2 AND inventory_name = $3`, sc.args()...); err != nil {
		return fmt.Errorf("delete the rows: %w", err)
	}
	if _, err := tx.Exec(ctx, `DELETE FROM `+k.t.state+` WHERE cluster = $1 AND inventory_namespace = $2 AND inventory_name = $3`, sc.args()...); err != nil {
		return fmt.Errorf("delete the state row: %w", err)
	}
	return nil
}
