package tflintrules

import (
	"strings"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/k8sschema"
)

// Suggest returns the known name that an unknown key most likely meant, or "" when none is
// close enough:
//
//  1. the key in snake_case, as the provider names Kubernetes fields (k8sschema.SnakeCase:
//     imagePullPolicy -> image_pull_policy, hostIPC -> host_ipc), with "-" read as "_", when
//     that name exists;
//  2. otherwise the name nearest by edit distance (Levenshtein, with a swap of two adjacent
//     letters counting as one edit), within a third of the key's length (at least 1, at most 3);
//     ties go to the first name in sorted order.
func Suggest(key string, names []string) string {
	known := make(map[string]bool, len(names))
	for _, n := range names {
		known[n] = true
	}
	snake := strings.ReplaceAll(k8sschema.SnakeCase(key), "-", "_")
	if snake != key && known[snake] {
		return snake
	}
	lower := strings.ToLower(key)
	if lower != key && known[lower] {
		return lower
	}
	limit := len([]rune(key)) / 3
	if limit < 1 {
		limit = 1
	}
	if limit > 3 {
		limit = 3
	}
	best, bestD := "", limit+1
	for _, n := range names {
		d := editDistance(key, n)
		if snake != key {
			d = min(d, editDistance(snake, n))
		}
		if d < bestD {
			best, bestD = n, d
		}
	}
	return best
}

// editDistance is the optimal string alignment distance of a and b: insertions, deletions,
// substitutions and transpositions of two adjacent characters, each one edit.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	// Three rows of the dynamic programming table: i-2, i-1 and i.
	prev2 := make([]int, len(rb)+1)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)]
}
