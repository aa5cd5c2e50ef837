// Command rolebounds adds to the generated DisaggregatedSet CRD the bounds that LeaderWorkerSet
// v0.10.0 puts on a role's replicas (0 to 1,000,000: the +kubebuilder:validation:Minimum and
// Maximum markers on LeaderWorkerSetSpec.Replicas in sigs.k8s.io/lws
// api/leaderworkerset/v1/leaderworkerset_types.go at v0.10.0, which a DisaggregatedSet role embeds).
// Our role embeds the released v0.9.0 template, whose replicas have no markers, and
// controller-gen reads markers only from the source of the type it generates from.
//
//	go run ./rolebounds FILE
package main

import (
	"fmt"
	"os"

	"sigs.k8s.io/yaml"
)

const (
	minReplicas = 0
	maxReplicas = 1000000
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: rolebounds CRD_FILE")
		os.Exit(2)
	}
	if err := run(os.Args[1]); err != nil {
		fmt.Fprintln(os.Stderr, "rolebounds:", err)
		os.Exit(1)
	}
}

func run(path string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var crd map[string]any
	if err := yaml.Unmarshal(data, &crd); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	versions, _ := dig(crd, "spec", "versions").([]any)
	if len(versions) == 0 {
		return fmt.Errorf("%s: no spec.versions", path)
	}
	for _, v := range versions {
		replicas, ok := dig(v, "schema", "openAPIV3Schema", "properties", "spec", "properties", "roles", "items",
			"properties", "spec", "properties", "replicas").(map[string]any)
		if !ok {
			return fmt.Errorf("%s: a version has no spec.roles[].spec.replicas", path)
		}
		replicas["minimum"] = minReplicas
		replicas["maximum"] = maxReplicas
	}
	out, err := yaml.Marshal(crd)
	if err != nil {
		return err
	}
	return os.WriteFile(path, append([]byte("---\n"), out...), 0o644)
}

// dig follows keys through nested maps; nil when one is missing.
func dig(v any, keys ...string) any {
	for _, k := range keys {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}
