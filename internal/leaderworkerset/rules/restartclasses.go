package rules

import (
	"strings"

	lwsv1 "github.com/kubeinfer/terraform-provider-kubeinfer/internal/apis/leaderworkerset/v1"
)

// RestartClass is a class of in-place change of a running LeaderWorkerSet that the controller
// treats one way: the rows of the table of what restarts what in the guide "Changing a running
// inference fleet". The guide's table is checked against PreviewRollout and PlanUpdate on a
// representative change of each class, and the restart differential reports its agreements per
// class, so that both speak of the same classes.
type RestartClass struct {
	// Name is the row's first cell, as the guide writes it.
	Name string
	// Prefixes are the JSON paths (map keys in brackets, list indices as [0]) of the attributes
	// of the class; none for a class no single attribute reaches (a lower partition after a
	// partitioned rollout).
	Prefixes []string
}

const (
	annotationsPath = "metadata.annotations"
	templatePath    = "spec.leaderWorkerTemplate"
)

// RestartClasses are the classes, in the guide's order. RestartClassOf picks the first whose
// prefix is the longest match.
var RestartClasses = []RestartClass{
	{"Object labels and annotations", []string{"metadata.labels", annotationsPath}},
	{"`exclusive-topology` annotation", []string{annotationsPath + "[" + lwsv1.ExclusiveKeyAnnotationKey + "]"}},
	{"`subgroup-exclusive-topology` annotation, with a subgroup policy", []string{annotationsPath + "[" + lwsv1.SubGroupExclusiveKeyAnnotationKey + "]"}},
	{"`replicas`", []string{"spec.replicas"}},
	{"`rollout_strategy` (`max_unavailable`, `max_surge`, `partition`)", []string{"spec.rolloutStrategy"}},
	{"Lower `partition` while groups an earlier partitioned rollout held back run the previous revision", nil},
	{"`startup_policy`", []string{"spec.startupPolicy"}},
	{"`network_config`", []string{"spec.networkConfig"}},
	{"`subgroup_policy`", []string{templatePath + ".subGroupPolicy"}},
	{"`restart_policy`", []string{templatePath + ".restartPolicy"}},
	{"`size`", []string{templatePath + ".size"}},
	{"Leader and worker pod template fields (`spec`)", []string{templatePath + ".leaderTemplate.spec", templatePath + ".workerTemplate.spec"}},
	{"Leader and worker template metadata (labels, annotations)", []string{templatePath + ".leaderTemplate.metadata", templatePath + ".workerTemplate.metadata"}},
	{"`volume_claim_templates` and their retention policy", []string{templatePath + ".volumeClaimTemplates", templatePath + ".persistentVolumeClaimRetentionPolicy"}},
}

// RestartClassOf is the name of the class of the attribute at the JSON path p, "" for none (the
// fields of NewerFields, which no release has).
func RestartClassOf(p string) string {
	best, bestLen := "", -1
	for _, c := range RestartClasses {
		for _, prefix := range c.Prefixes {
			if (p == prefix || strings.HasPrefix(p, prefix+".") || strings.HasPrefix(p, prefix+"[")) && len(prefix) > bestLen {
				best, bestLen = c.Name, len(prefix)
			}
		}
	}
	return best
}
