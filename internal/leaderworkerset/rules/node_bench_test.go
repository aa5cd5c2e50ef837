package rules

import "testing"

// BenchmarkBuildNode: the LeaderWorkerSet's node tree, which every provider process that
// validates, plans or applies one builds once (issue #28).
func BenchmarkBuildNode(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		buildNode()
	}
}
