package verify_test

import (
	"context"
	"strings"
	"testing"
	"time"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/snapshot"
	"kollect.dev/kollect/services/cli/internal/verify"
)

// forge returns an envelope of revision rev of web holding rows, with a
// recomputed checksum and prev as previousChecksum: what anyone with push
// access can write, consistent in itself.
func forge(t *testing.T, rev uint64, prev string, rows []busv1.Row) busv1.Envelope {
	t.Helper()
	env, err := snapshot.Envelope(web, rev, 1, rows)
	if err != nil {
		t.Fatal(err)
	}
	env.PreviousChecksum = prev
	return env.Stamp("prod-eu-1", time.Date(2026, 11, 29, 13, 0, 0, 0, time.UTC))
}

func TestAnAnchorFindsForgedHistory(t *testing.T) {
	envs := chain(t)
	// The checksums the bus recorded (the query API's inventoryrevisions).
	anchor := verify.Anchor{}
	for _, env := range envs {
		anchor[env.Revision] = env.Checksum
	}
	forged := []busv1.Row{row("a", 1), row("c", 1), row("evil", 9)}
	tests := []struct {
		name   string
		export func(g *gitRepo)
		at     uint64
		says   string
	}{
		{"a revision whose rows were rewritten and its checksum recomputed", func(g *gitRepo) {
			g.export(envs[0])
			g.export(envs[1])
			g.export(forge(t, 3, envs[1].Checksum, forged))
		}, 3, "not the one the anchor recorded"},
		{"a revision number that was never published", func(g *gitRepo) {
			for _, env := range envs {
				g.export(env)
			}
			g.export(forge(t, 4, envs[2].Checksum, forged))
		}, 4, "no such revision"},
		{"a revision number used again", func(g *gitRepo) {
			for _, env := range envs {
				g.export(env)
			}
			g.export(forge(t, 3, envs[1].Checksum, forged))
		}, 3, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := newGitRepo(t)
			tt.export(g)
			revs, err := verify.Git{Repo: g.url, Path: docPath}.Revisions(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			plain, err := verify.Check(revs)
			if err != nil {
				t.Fatal(err)
			}
			if plain.First != nil {
				t.Fatalf("the forgery is not consistent in itself: %+v", plain.First)
			}
			res, err := verify.CheckAnchored(revs, anchor)
			if err != nil {
				t.Fatal(err)
			}
			if res.First == nil || res.First.Revision != tt.at || !strings.Contains(res.First.Reason, tt.says) {
				t.Fatalf("anchored: %+v (first %+v), want a mismatch at revision %d saying %q", res, res.First, tt.at, tt.says)
			}
		})
	}
	t.Run("an untouched history verifies against the anchor, older revisions than it keeps by checksum only", func(t *testing.T) {
		g := newGitRepo(t)
		for _, env := range envs {
			g.export(env)
		}
		revs, err := verify.Git{Repo: g.url, Path: docPath}.Revisions(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		trimmed := verify.Anchor{2: envs[1].Checksum, 3: envs[2].Checksum}
		res, err := verify.CheckAnchored(revs, trimmed)
		if err != nil || res.First != nil || res.Checked != 3 || res.Anchored != 2 {
			t.Fatalf("%+v (first %+v, err %v), want 3 revisions checked, 2 anchored", res, res.First, err)
		}
	})
}
