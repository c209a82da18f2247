package postgres

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/jackc/pgx/v5"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/sink"
)

// hashColumn is the state table's rows hash: the sum, as numeric, of
// rowHash over the inventory's rows. The sum does not depend on row order,
// so a delta keeps it up to date in O(change) (minus the hash of the rows
// it touches before, plus that of the rows it upserted after) and a drift
// check recomputes it with one aggregate over the scope. NULL when not
// known (a table of an earlier release, until the next full write).
const hashColumn = "rows_hash"

// rowHash is a row's 64-bit hash (alias t): the first 16 hex digits of the
// md5 of the text of its key and data columns. jsonb prints in a canonical
// form, so equal content hashes equally whatever wrote it.
const rowHash = `('x' || left(md5(ROW(t.target_namespace, t.target_name, t.source_uid, t.resource_namespace,
  t.resource_name, t."group", t.version, t.kind, t.attributes)::text), 16))::bit(64)::bigint`

// scoped restricts the rows table (alias t) to the scope $1..$3.
const scoped = `t.cluster = $1 AND t.inventory_namespace = $2 AND t.inventory_name = $3`

// Drift compares what the table holds for s's (cluster, inventory) with s
// (header only: it is never loaded), in one read-only snapshot of the
// database: the state row is present with s's revision and checksum, the
// scope holds ItemCount rows, and the rows hash recomputed over the scope
// equals the one the writes kept (when the state table has the column). A
// newer revision in the state row is not drift: that write's own event
// follows.
func (k *Sink) Drift(ctx context.Context, s sink.Snapshot) (string, error) {
	env := &s.Envelope
	op := fmt.Sprintf("check %s/%s of cluster %s in postgres table %s for drift", env.Inventory.Namespace, env.Inventory.Name, env.Cluster, k.t)
	if env.Revision > math.MaxInt64 {
		return "", sink.Permanent(fmt.Errorf("%s: revision %d does not fit a bigint", op, env.Revision))
	}
	if err := k.provision(ctx); err != nil {
		return "", classify(ctx, op, err, k.mode)
	}
	sc := scope{cluster: env.Cluster, namespace: env.Inventory.Namespace, name: env.Inventory.Name,
		revision: int64(env.Revision), checksum: env.Checksum, itemCount: env.ItemCount}
	var reason string
	err := pgx.BeginTxFunc(ctx, k.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly},
		func(tx pgx.Tx) (err error) {
			reason, err = k.drift(ctx, tx, sc)
			return err
		})
	if isMissing(err) {
		k.forgetProvisioning()
		return "table missing", nil
	}
	if err != nil {
		return "", classify(ctx, op, err, k.mode)
	}
	return reason, nil
}

// drift runs Drift's queries in tx.
func (k *Sink) drift(ctx context.Context, tx pgx.Tx, sc scope) (string, error) {
	hashed := k.hashes()
	hash := `NULL::text`
	if hashed {
		hash = hashColumn + `::text`
	}
	var (
		st   stored
		kept *string
	)
	err := tx.QueryRow(ctx, `SELECT revision, checksum, `+hash+` FROM `+k.t.state+`
WHERE cluster = $1 AND inventory_namespace = $2 AND inventory_name = $3`, sc.args()...).Scan(&st.revision, &st.checksum, &kept)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return "state row missing", nil
	case err != nil:
		return "", fmt.Errorf("read the state row: %w", err)
	case st.revision > sc.revision:
		return "", nil
	case st.revision != sc.revision || st.checksum != sc.checksum:
		return fmt.Sprintf("state row holds revision %d checksum %s", st.revision, st.checksum), nil
	}
	sum := `NULL::text`
	if hashed {
		sum = `coalesce(sum(` + rowHash + `), 0)::text`
	}
	var (
		held int64
		have *string
	)
	err = tx.QueryRow(ctx, `SELECT count(*), `+sum+` FROM `+k.t.rows+` t WHERE `+scoped, sc.args()...).Scan(&held, &have)
	switch {
	case err != nil:
		return "", fmt.Errorf("count the rows: %w", err)
	case held != int64(sc.itemCount):
		return fmt.Sprintf("%d rows, want %d", held, sc.itemCount), nil
	case !hashed:
		return "", nil
	case kept == nil:
		return "rows hash not recorded", nil
	case have == nil || *have != *kept:
		return "row content changed", nil
	}
	return "", nil
}

// rehash records the rows hash of the whole scope, after a full write.
func (k *Sink) rehash(ctx context.Context, tx pgx.Tx, sc scope) error {
	if !k.hashes() {
		return nil
	}
	_, err := tx.Exec(ctx, `UPDATE `+k.t.state+` SET `+hashColumn+` = (SELECT coalesce(sum(`+rowHash+`), 0) FROM `+k.t.rows+` t
WHERE `+scoped+`) WHERE cluster = $1 AND inventory_namespace = $2 AND inventory_name = $3`, sc.args()...)
	if err != nil {
		return fmt.Errorf("record the rows hash: %w", err)
	}
	return nil
}

// adjustHash adds (sign "+") or subtracts (sign "-") the hash of the
// scope's rows of keys to the rows hash: a delta subtracts the rows of all
// its keys before it applies and adds those of its upserts after, O(change)
// through the primary key.
func (k *Sink) adjustHash(ctx context.Context, tx pgx.Tx, sc scope, sign string, keys []busv1.RowKey) error {
	if !k.hashes() || len(keys) == 0 {
		return nil
	}
	tns, tn, uid := make([]string, len(keys)), make([]string, len(keys)), make([]string, len(keys))
	for i, key := range keys {
		tns[i], tn[i], uid[i] = key.TargetNamespace, key.TargetName, key.UID
	}
	_, err := tx.Exec(ctx, `UPDATE `+k.t.state+` SET `+hashColumn+` = `+hashColumn+` `+sign+` (SELECT coalesce(sum(`+rowHash+`), 0)
FROM `+k.t.rows+` t WHERE `+scoped+`
  AND (t.target_namespace, t.target_name, t.source_uid) IN (SELECT * FROM unnest($4::text[], $5::text[], $6::text[])))
WHERE cluster = $1 AND inventory_namespace = $2 AND inventory_name = $3`, sc.args(tns, tn, uid)...)
	if err != nil {
		return fmt.Errorf("adjust the rows hash: %w", err)
	}
	return nil
}

// deltaKeys returns the keys of d's upserts and deletes.
func deltaKeys(d *busv1.Delta) (upserts, all []busv1.RowKey) {
	upserts = make([]busv1.RowKey, len(d.Upserts))
	for i := range d.Upserts {
		upserts[i] = d.Upserts[i].Key()
	}
	return upserts, append(append(make([]busv1.RowKey, 0, len(upserts)+len(d.Deletes)), upserts...), d.Deletes...)
}
