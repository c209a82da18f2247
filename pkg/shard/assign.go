package shard

import (
	"cmp"
	"slices"
)

// Target returns the owner each shard should have, given the live members
// and each shard's live holder ("" for none): every member gets floor or
// ceil of n/len(members) shards (the ceil going to the first members by
// name, so shares do not change while shards move), keeps as many of the
// shards it holds as that allows, and the rest go to the members still
// short, each shard to the short member ranking it highest. Shards move
// only from members above their share to members below it, so a member
// joining or leaving moves only its share (unless the shares themselves
// cross: 11 shards over 4 then 5 members is 3,3,3,2 then 3,2,2,2,2). Every
// replica that sees the same members and holders computes the same target.
func Target(n int, members []string, holder []string) []string {
	owner := make([]string, n)
	if len(members) == 0 {
		return owner
	}
	held := map[string][]int{}
	for i, h := range holder {
		if h != "" && slices.Contains(members, h) {
			held[h] = append(held[h], i)
		}
	}
	order := slices.Clone(members)
	slices.Sort(order)
	share := map[string]int{}
	for k, m := range order {
		share[m] = n / len(members)
		if k < n%len(members) {
			share[m]++
		}
	}
	for _, m := range order {
		keep := held[m]
		slices.SortFunc(keep, func(a, b int) int { return cmp.Compare(rank(m, b), rank(m, a)) })
		for _, i := range keep[:min(len(keep), share[m])] {
			owner[i] = m
		}
		share[m] -= min(len(keep), share[m])
	}
	for i := range owner {
		if owner[i] != "" {
			continue
		}
		best := ""
		for _, m := range order {
			if share[m] > 0 && (best == "" || rank(m, i) > rank(best, i)) {
				best = m
			}
		}
		owner[i] = best
		share[best]--
	}
	return owner
}
