package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/kubeinfer/terraform-provider-kubeinfer/scripts/bench/internal/tfbench"

	"github.com/kubeinfer/terraform-provider-kubeinfer/internal/leaderworkerset/lwsfixture"
	lwsrules "github.com/kubeinfer/terraform-provider-kubeinfer/internal/leaderworkerset/rules"
)

// A kind under benchmark: how to write N objects as Terraform resources and as YAML for kubectl.
type benchKind struct {
	Name     string // short name used in the table and file names
	TypeName string // Terraform resource type
	// HCL is the resource block of object i; YAML its manifest (one document).
	HCL  func(i int) string
	YAML func(i int) ([]byte, error)
}

func lwsName(i int) string { return fmt.Sprintf("bench-lws-%03d", i) }
func plcName(i int) string { return fmt.Sprintf("bench-plc-%03d", i) }

// lwsKind is the vLLM LeaderWorkerSet of lwsfixture.VLLM (2 groups of size 4), as HCL
// (tfbench.VLLMLeaderWorkerSet, as in scripts/bench/slope) and as YAML.
var lwsKind = benchKind{
	Name:     "LWS",
	TypeName: "kubeinfer_leaderworkerset",
	HCL: func(i int) string {
		return "\n" + tfbench.VLLMLeaderWorkerSet(fmt.Sprintf("lws_%03d", i), lwsfixture.VLLM(lwsName(i), 2, 4))
	},
	YAML: func(i int) ([]byte, error) {
		obj := lwsfixture.VLLM(lwsName(i), 2, 4)
		// The CRD's and the webhook's defaults, as the provider sends them; without them the
		// CRD rejects the empty strings the Go type writes for unset enums.
		lwsrules.SetDefaults(obj)
		m, err := manifestMap(obj)
		if err != nil {
			return nil, err
		}
		m["apiVersion"] = "leaderworkerset.x-k8s.io/v1"
		m["kind"] = "LeaderWorkerSet"
		return yaml.Marshal(stripNullTimestamps(m))
	},
}

// manifestMap is obj as the JSON object kubectl sends: without status and without the null
// creationTimestamp the Go type writes.
func manifestMap(obj any) (map[string]any, error) {
	raw, err := json.Marshal(obj)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, err
	}
	delete(m, "status")
	if meta, ok := m["metadata"].(map[string]any); ok {
		delete(meta, "creationTimestamp")
	}
	return m, nil
}

// stripNullTimestamps drops the "creationTimestamp: null" that the embedded pod templates'
// ObjectMeta marshals to.
func stripNullTimestamps(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, c := range x {
			if k == "creationTimestamp" && c == nil {
				delete(x, k)
				continue
			}
			x[k] = stripNullTimestamps(c)
		}
	case []any:
		for i, c := range x {
			x[i] = stripNullTimestamps(c)
		}
	}
	return v
}

// plcKind is a queued priority level.
var plcKind = benchKind{
	Name:     "PLC",
	TypeName: "kubeinfer_priority_level_configuration",
	HCL: func(i int) string {
		return fmt.Sprintf(plcHCL, i, plcName(i))
	},
	YAML: func(i int) ([]byte, error) {
		return []byte(fmt.Sprintf(plcYAML, plcName(i))), nil
	},
}

const plcHCL = `
resource "kubeinfer_priority_level_configuration" "plc_%03[1]d" {
  metadata = {
    name   = %[2]q
    labels = { team = "inference" }
  }
  spec = {
    type = "Limited"
    limited = {
      nominal_concurrency_shares = 10
      lendable_percent           = 0
      limit_response = {
        type = "Queue"
        queuing = {
          queues             = 16
          hand_size          = 4
          queue_length_limit = 50
        }
      }
    }
  }
}
`

const plcYAML = `apiVersion: flowcontrol.apiserver.k8s.io/v1
kind: PriorityLevelConfiguration
metadata:
  name: %s
  labels:
    team: inference
spec:
  type: Limited
  limited:
    nominalConcurrencyShares: 10
    lendablePercent: 0
    limitResponse:
      type: Queue
      queuing:
        queues: 16
        handSize: 4
        queueLengthLimit: 50
`

// providerBlock configures the provider: offline points it at a port where nothing listens,
// so that any request fails (after the client's retries) and shows in the time or as an error.
func providerBlock(kubeconfig string, offline bool) string {
	if offline {
		return tfbench.OfflineProvider
	}
	return fmt.Sprintf("provider \"kubeinfer\" {\n  config_path = %q\n}\n", kubeconfig)
}

// configFor is the whole Terraform configuration of n objects.
func configFor(k benchKind, n int, kubeconfig string, offline bool) string {
	var b strings.Builder
	b.WriteString(tfbench.RequiredProviders + "\n")
	b.WriteString(providerBlock(kubeconfig, offline))
	for i := range n {
		b.WriteString(k.HCL(i))
	}
	return b.String()
}

// manifestsFor is the multi-document YAML of the same n objects.
func manifestsFor(k benchKind, n int) ([]byte, error) {
	var b bytes.Buffer
	for i := range n {
		doc, err := k.YAML(i)
		if err != nil {
			return nil, err
		}
		b.WriteString("---\n")
		b.Write(doc)
	}
	return b.Bytes(), nil
}
