package snapshot

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	busv1 "kollect.dev/kollect/api/bus/v1"
)

func rows() []busv1.Row {
	mk := func(tns, tn, ns, n, uid, img string) busv1.Row {
		return busv1.Row{TargetNamespace: tns, TargetName: tn, Namespace: ns, Name: n, UID: uid,
			Group: "apps", Version: "v1", Kind: "Deployment", Attributes: map[string]any{"image": img, "b": 1, "a": "<&>"}}
	}
	return []busv1.Row{
		mk("team-a", "web", "team-a", "api", "u1", "api:1"),
		mk("team-a", "web", "team-a", "front", "u2", "front:2"),
		mk("team-a", "db", "team-a", "pg", "u3", "pg:15"),
		mk("team-b", "web", "team-b", "api", "u4", "api:1"),
	}
}

func TestChecksumDoesNotDependOnArrivalOrder(t *testing.T) {
	want, err := Envelope(busv1.NamespacedName{Namespace: "team-a", Name: "inv"}, 1, 1, rows())
	if err != nil {
		t.Fatal(err)
	}
	for i := range 20 {
		shuffled := rows()
		rand.Shuffle(len(shuffled), func(a, b int) { shuffled[a], shuffled[b] = shuffled[b], shuffled[a] })
		got, err := Envelope(busv1.NamespacedName{Namespace: "team-a", Name: "inv"}, 1, 1, shuffled)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("shuffle %d gave another envelope (-want +got):\n%s", i, diff)
		}
	}
	if want.Items[0].TargetName != "db" || want.Items[3].TargetNamespace != "team-b" {
		t.Errorf("items are not in canonical order: %v", want.Items)
	}
}

func TestChecksumV1IsTheSHA256OfTheCanonicalJSON(t *testing.T) {
	r := rows()[:1]
	got, err := ChecksumV1(r)
	if err != nil {
		t.Fatal(err)
	}
	canonical := `[{"targetNamespace":"team-a","targetName":"web","namespace":"team-a","name":"api","uid":"u1",` +
		`"group":"apps","version":"v1","kind":"Deployment","attributes":{"a":"<&>","b":1,"image":"api:1"}}]`
	sum := sha256.Sum256([]byte(canonical))
	if want := hex.EncodeToString(sum[:]); got != want {
		t.Errorf("ChecksumV1 = %s, want sha256 of %s = %s", got, canonical, want)
	}
	empty, _ := ChecksumV1(nil)
	if sum := sha256.Sum256([]byte("[]")); empty != hex.EncodeToString(sum[:]) {
		t.Errorf("empty checksum %s is not sha256(\"[]\")", empty)
	}
}

// checksumV2 is docs/contract.md's definition of the version 2 checksum, written
// out independently of Chunker.
func checksumV2(t *testing.T, rows []busv1.Row) (string, int) {
	t.Helper()
	top := sha256.New()
	top.Write([]byte("kollect.dev/checksum/v2\n"))
	var chunk []string
	chunks := 0
	flush := func() {
		sum := sha256.Sum256([]byte(strings.Join(chunk, ",")))
		top.Write(sum[:])
		chunk, chunks = nil, chunks+1
	}
	for _, r := range rows {
		var b strings.Builder
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(r); err != nil {
			t.Fatal(err)
		}
		chunk = append(chunk, strings.TrimSuffix(b.String(), "\n"))
		key := strings.Join([]string{r.TargetNamespace, r.TargetName, r.Namespace, r.Name, r.UID}, "\x00")
		if h := sha256.Sum256([]byte(key)); h[0] == 0 {
			flush()
		}
	}
	if len(chunk) > 0 {
		flush()
	}
	return hex.EncodeToString(top.Sum(nil)), chunks
}

func TestChecksumIsTheChunkTreeOfTheContract(t *testing.T) {
	many := make([]busv1.Row, 3000)
	for i := range many {
		many[i] = busv1.Row{TargetNamespace: "ns", TargetName: "t", Namespace: "ns", Name: fmt.Sprintf("obj-%05d", i),
			UID: fmt.Sprintf("u%d", i), Version: "v1", Kind: "ConfigMap", Attributes: map[string]any{"i": i}}
	}
	Sort(many)
	tests := []struct {
		name string
		rows []busv1.Row
	}{
		{"an empty snapshot hashes the prefix alone", nil},
		{"one row is one chunk", rows()[:1]},
		{"3000 rows are cut where the sort key's hash starts with a zero byte", many},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Checksum(tt.rows)
			if err != nil {
				t.Fatal(err)
			}
			want, chunks := checksumV2(t, tt.rows)
			if got != want {
				t.Errorf("Checksum = %s, want %s", got, want)
			}
			if len(tt.rows) == 3000 && (chunks < 4 || chunks > 30) {
				t.Errorf("3000 rows made %d chunks, want about 12", chunks)
			}
		})
	}
}

func TestSortKeyOrdersLikeCompareRows(t *testing.T) {
	parts := []string{"", "a", "ab", "a-b", "b", "a\u00e9"}
	var all []busv1.Row
	for _, a := range parts {
		for _, b := range parts {
			for _, c := range parts {
				all = append(all, busv1.Row{TargetNamespace: a, TargetName: b, Namespace: c, Name: b, UID: a})
			}
		}
	}
	for i := range all {
		for j := range all {
			want := busv1.CompareRows(all[i], all[j])
			got := strings.Compare(SortKey(&all[i]), SortKey(&all[j]))
			if want != got {
				t.Fatalf("CompareRows(%v, %v) = %d, sort keys compare %d", all[i], all[j], want, got)
			}
		}
	}
}

func TestEmptyEnvelopeHasAnEmptyItemList(t *testing.T) {
	e, err := Envelope(busv1.NamespacedName{Name: "all"}, 3, 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	if e.Items == nil || e.ItemCount != 0 || e.SchemaVersion != busv1.SchemaVersion || e.Revision != 3 {
		t.Errorf("empty envelope = %+v", e)
	}
}

func TestMember(t *testing.T) {
	nsInv := &busv1.InventoryConfig{Kind: busv1.KindInventory, Namespace: "team-a", Name: "inv"}
	clInv := &busv1.InventoryConfig{Kind: busv1.KindClusterInventory, Name: "fleet", TargetRefs: []string{"all-deploys"}, Namespaces: []string{"prod"}}
	tests := []struct {
		name string
		inv  *busv1.InventoryConfig
		row  busv1.Row
		want bool
	}{
		{"a namespaced inventory takes rows of Targets in its namespace", nsInv, busv1.Row{TargetNamespace: "team-a", TargetName: "x", Namespace: "other"}, true},
		{"a namespaced inventory ignores other namespaces' Targets", nsInv, busv1.Row{TargetNamespace: "team-b", TargetName: "x", Namespace: "team-a"}, false},
		{"a namespaced inventory never takes ClusterTarget rows", &busv1.InventoryConfig{Kind: busv1.KindInventory, Namespace: ""}, busv1.Row{TargetName: "all-deploys"}, false},
		{"a cluster inventory takes rows of its ClusterTargets in its namespaces", clInv, busv1.Row{TargetName: "all-deploys", Namespace: "prod"}, true},
		{"a cluster inventory skips namespaces it does not select", clInv, busv1.Row{TargetName: "all-deploys", Namespace: "dev"}, false},
		{"a cluster inventory never takes namespaced Target rows", clInv, busv1.Row{TargetNamespace: "prod", TargetName: "all-deploys", Namespace: "prod"}, false},
		{"a cluster inventory skips ClusterTargets it does not reference", clInv, busv1.Row{TargetName: "other", Namespace: "prod"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Member(tt.inv, &tt.row); got != tt.want {
				t.Errorf("Member = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestDedupe(t *testing.T) {
	in := []busv1.Row{
		{TargetName: "a", Namespace: "prod", Name: "web", UID: "u1"},
		{TargetName: "a", Namespace: "prod", Name: "db", UID: "u2"},
		{TargetName: "b", Namespace: "prod", Name: "web", UID: "u1"},
	}
	Sort(in)
	keep := Dedupe(busv1.DedupeKeepAll, append([]busv1.Row(nil), in...))
	if len(keep) != 3 {
		t.Errorf("keepAll kept %d rows, want 3", len(keep))
	}
	got := Dedupe(busv1.DedupeByResourceUID, append([]busv1.Row(nil), in...))
	want := []busv1.Row{in[0], in[1]}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("byResourceUID (-want +got):\n%s", diff)
	}
}

func TestPagesEndAtAboutOneChunkIn64(t *testing.T) {
	var c Chunker
	for i := range 200_000 {
		key := fmt.Sprintf("ns\x00t\x00ns\x00obj-%06d\x00u%d", i, i)
		if err := c.Add(key, []byte(`{}`)); err != nil {
			t.Fatal(err)
		}
	}
	chunks, _, err := c.Finish()
	if err != nil {
		t.Fatal(err)
	}
	ends := c.PageEnds()
	if len(ends) != len(chunks) {
		t.Fatalf("%d page ends for %d chunks", len(ends), len(chunks))
	}
	pages := 0
	for _, e := range ends {
		if e {
			pages++
		}
	}
	if per := len(chunks) / max(pages, 1); per < 32 || per > 128 {
		t.Errorf("%d chunks in %d pages: %d chunks per page, want about 64", len(chunks), pages, per)
	}
}
