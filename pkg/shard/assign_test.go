package shard_test

import (
	"fmt"
	"slices"
	"testing"

	"kollect.dev/kollect/pkg/shard"
)

// moved counts the shards whose owner changed other than to or from who.
func moved(before, after []string, who string) int {
	n := 0
	for i := range before {
		if before[i] != after[i] && before[i] != who && after[i] != who {
			n++
		}
	}
	return n
}

func names(m int) []string {
	var out []string
	for i := range m {
		out = append(out, fmt.Sprintf("kollect-collector-%d", i))
	}
	return out
}

func checkBalanced(t *testing.T, n int, members, owner []string) {
	t.Helper()
	count := map[string]int{}
	for i, o := range owner {
		if !slices.Contains(members, o) {
			t.Fatalf("n=%d members=%d: shard %d goes to %q", n, len(members), i, o)
		}
		count[o]++
	}
	lo, hi := n/len(members), (n+len(members)-1)/len(members)
	for _, m := range members {
		if count[m] < lo || count[m] > hi {
			t.Errorf("n=%d members=%d: %s gets %d, want %d to %d", n, len(members), m, count[m], lo, hi)
		}
	}
}

func TestTargetIsBalancedAndMovesOnlyTheJoinersOrLeaversShare(t *testing.T) {
	for _, n := range []int{1, 4, 10, 16, 32, 64} {
		for m := 1; m <= 5; m++ {
			members := names(m)
			// From nothing held, then settled (everyone holds its target).
			now := shard.Target(n, members, make([]string, n))
			checkBalanced(t, n, members, now)
			if again := shard.Target(n, members, now); !slices.Equal(again, now) {
				t.Errorf("n=%d m=%d: a settled assignment moves: %v -> %v", n, m, now, again)
			}
			joined := append(slices.Clone(members), "kollect-collector-new")
			after := shard.Target(n, joined, now)
			checkBalanced(t, n, joined, after)
			if k := moved(now, after, "kollect-collector-new"); k > 0 && n/m >= (n+m)/(m+1) {
				t.Errorf("n=%d m=%d: a join moved %d shards between the others", n, m, k)
			}
			if m > 1 {
				left := members[1:]
				after := shard.Target(n, left, now)
				checkBalanced(t, n, left, after)
				if k := moved(now, after, members[0]); k > 0 && (n+m-1)/m <= n/(m-1) {
					t.Errorf("n=%d m=%d: a leave moved %d shards between the others", n, m, k)
				}
			}
		}
	}
}

func TestOfIsStable(t *testing.T) {
	// The shard of a key is part of the bus layout: every replica, of any
	// release, must agree. These values are fixed (FNV-1a, 32 bits).
	for _, c := range []struct {
		key  string
		n    int
		want int
	}{
		{"team-a/deployments", 16, 5}, {"team-b/pods", 16, 12}, {"=cluster/nodes", 16, 4},
		{"=cluster/nodes", 3, 2}, {"team-a/deployments", 1, 0}, {"", 16, 5},
	} {
		if got := shard.Of(c.key, c.n); got != c.want {
			t.Errorf("Of(%q, %d) = %d, want %d", c.key, c.n, got, c.want)
		}
	}
}
