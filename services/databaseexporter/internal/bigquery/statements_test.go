package bigquery

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/snapshot"
	"kollect.dev/kollect/pkg/testenv/golden"
)

// nasty are attribute values that must never reach SQL text.
var nasty = []string{`it's "quoted"`, `back\slash \\ \n`, "new\nline\r\n", "`; DROP TABLE x; --"}

// fixture is a stamped snapshot whose rows carry the nasty values.
func fixture(t *testing.T) busv1.Envelope {
	t.Helper()
	rows := []busv1.Row{
		{TargetNamespace: "team-a", TargetName: "pods", Namespace: "team-a", Name: "web-0", UID: "uid-1",
			Version: "v1", Kind: "Pod", Attributes: map[string]any{"image": "nginx:1.27", "note": nasty[0],
				"path": nasty[1], "text": nasty[2], "labels": map[string]any{"app.kubernetes.io/name": nasty[3]}, "html": "<a&b>"}},
		{TargetNamespace: "team-a", TargetName: "deploys", Namespace: "team-a", Name: `we"b`, UID: "uid-2",
			Group: "apps", Version: "v1", Kind: "Deployment", Attributes: map[string]any{"replicas": 3.0, "paused": false, "none": nil}},
	}
	env, err := snapshot.Envelope(busv1.NamespacedName{Namespace: "team-a", Name: "web"}, 7, 2, rows)
	if err != nil {
		t.Fatal(err)
	}
	env.PreviousChecksum = "previous-checksum-of-revision-6"
	return env.Stamp("prod-eu-1", time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
}

// goldenTyped are the typed columns of fixture's declared types.
var goldenTyped = declaredColumns(busv1.AttributeTypes{"image": "string", "replicas": "int", "paused": "bool", "labels": "map"})

var (
	goldenData    = tableRef{Project: "acme-analytics", Dataset: "kollect", Table: "inventory_rows"}
	goldenStaging = goldenData.with("inventory_rows_staging_0011223344556677")
)

// render prints statements and their parameters for a golden file.
func render(stmts []statement) string {
	var b strings.Builder
	for i, s := range stmts {
		fmt.Fprintf(&b, "-- statement %d\n%s\n", i+1, s.SQL)
		for _, p := range s.Params {
			fmt.Fprintf(&b, "--   @%s = %#v\n", p.Name, p.Value)
		}
	}
	return b.String()
}

func TestStatements(t *testing.T) {
	env := fixture(t)
	tests := []struct {
		name, golden string
		stmts        []statement
	}{
		{"a snapshot replaces the inventory's rows from staging in one transaction", "replace-transaction.golden",
			[]statement{script(replaceStatements(goldenData, goldenStaging, env, nil))}},
		{"without transactions the same statements run one by one", "replace-statements.golden",
			replaceStatements(goldenData, goldenStaging, env, nil)},
		{"an empty snapshot deletes the rows and records the state without staging", "empty.golden",
			replaceStatements(goldenData, tableRef{}, env, nil)},
		{"unchanged rows under a new revision only record the state", "state.golden",
			withParams(stateStatements(goldenData), env)},
		{"a deleted inventory loses its rows and state", "delete.golden", deleteStatements(goldenData, env)},
		{"the state is read with parameters", "read-state.golden", []statement{readStateStatement(goldenData, env)}},
		{"a drift check counts the inventory's rows with parameters", "count.golden", []statement{countStatement(goldenData, env)}},
		{"history mode closes changed versions, opens new ones and records the revision after the rows", "history.golden",
			withHistory(true, goldenData, nil, env, nil)},
		{"history mode adds nothing when off", "empty.golden", withHistory(false, goldenData, replaceStatements(goldenData, tableRef{}, env, nil), env, goldenTyped)},
		{"a backfill's first revision rewinds the history before the rows and the history are written", "rewind.golden",
			withRewind(true, goldenData, withHistory(true, goldenData, nil, env, nil), env)},
		{"typed columns are inserted from staging beside the attributes JSON", "replace-typed.golden",
			replaceStatements(goldenData, goldenStaging, env, goldenTyped)},
		{"history mode copies the typed columns into a new version", "history-typed.golden",
			withHistory(true, goldenData, nil, env, goldenTyped)},
		{"missing typed columns are added, each unless it exists", "add-columns.golden",
			[]statement{addColumnsStatement(goldenData, goldenTyped)}},
		{"without a backfill nothing is rewound", "history.golden", withRewind(false, goldenData, withHistory(true, goldenData, nil, env, nil), env)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			golden.Check(t, filepath.Join("testdata", tt.golden), []byte(render(tt.stmts)))
			for _, s := range tt.stmts {
				for _, v := range append(nasty, env.Cluster, "team-a", "web", env.Checksum) {
					if strings.Contains(s.SQL, v) {
						t.Errorf("SQL text contains the value %q:\n%s", v, s.SQL)
					}
				}
			}
		})
	}
}

func TestPayload(t *testing.T) {
	env := fixture(t)
	for name, tt := range map[string]struct {
		golden string
		typed  []typedColumn
	}{
		"rows are loaded as NDJSON, one line each, attributes as JSON text": {"payload.golden", nil},
		"typed columns follow, each where the row's value fits it":          {"payload-typed.golden", goldenTyped},
	} {
		t.Run(name, func(t *testing.T) {
			body, err := payload(env.Items, tt.typed)
			if err != nil {
				t.Fatal(err)
			}
			golden.Check(t, filepath.Join("testdata", tt.golden), body)
			if n := strings.Count(string(body), "\n"); n != len(env.Items) {
				t.Errorf("payload has %d lines, want %d", n, len(env.Items))
			}
		})
	}
}

func TestIdentifiers(t *testing.T) {
	tests := []struct {
		name  string
		ref   tableRef
		valid bool
	}{
		{"a plain project, dataset and table are valid", tableRef{"acme-analytics", "kollect", "inventory_rows"}, true},
		{"a domain-scoped project is valid", tableRef{"example.com:acme", "kollect", "rows"}, true},
		{"a table with a dash is valid", tableRef{"acme", "kollect", "rows-2026"}, true},
		{"a backquote in the table is refused", tableRef{"acme", "kollect", "rows`; DROP TABLE x; --"}, false},
		{"a dot in the dataset is refused", tableRef{"acme", "kollect.other", "rows"}, false},
		{"a space in the table is refused", tableRef{"acme", "kollect", "my rows"}, false},
		{"a quote in the project is refused", tableRef{"acme'", "kollect", "rows"}, false},
		{"an upper-case project is refused", tableRef{"Acme", "kollect", "rows"}, false},
		{"an empty dataset is refused", tableRef{"acme", "", "rows"}, false},
		{"a newline in the table is refused", tableRef{"acme", "kollect", "rows\n"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.ref.validate(); (err == nil) != tt.valid {
				t.Fatalf("validate(%+v) = %v, want valid %v", tt.ref, err, tt.valid)
			}
		})
	}
}
