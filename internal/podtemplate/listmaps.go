package podtemplate

import (
	"encoding/json"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// ValidateListMapKeys reports the duplicate keys that a custom resource embedding this pod
// template (a LeaderWorkerSet, a DisaggregatedSet role) is refused for. controller-gen copies the
// +listType=map / +listMapKey markers of k8s.io/api core/v1 into the CRD
// (x-kubernetes-list-type: map, x-kubernetes-list-map-keys), and kube-apiserver checks them on
// every write of the custom resource, with or without server-side apply. A StatefulSet is not
// checked this way, so ValidatePodTemplateSpec, which mirrors the StatefulSet's validation,
// accepts some of these duplicates (two env entries of one name, two ports of one number and
// protocol, two host aliases of one IP, an image pull secret named twice).
//
// Port of k8s.io/apiextensions-apiserver@v0.37.2 pkg/apiserver/schema/listtype/validation.go
// validateListMap and validateListSet: the second occurrence of a key is a Duplicate at its
// index, with the key fields as value; later occurrences of that key are not reported. The lists
// and keys are those of the LeaderWorkerSet and DisaggregatedSet CRDs of sigs.k8s.io/lws@v0.9.0
// (config/crd/bases). A key field that has a CRD default (a port's protocol "TCP") is compared
// defaulted, as the server defaults before it validates.
func ValidateListMapKeys(tpl *corev1.PodTemplateSpec, p *field.Path) field.ErrorList {
	if tpl == nil {
		return nil
	}
	spec := &tpl.Spec
	sp := p.Child("spec")
	byName := func(name string) map[string]any { return map[string]any{"name": name} }

	var errs field.ErrorList
	errs = append(errs, duplicateKeys(sp.Child("containers"), spec.Containers, func(c corev1.Container) map[string]any { return byName(c.Name) })...)
	errs = append(errs, duplicateKeys(sp.Child("initContainers"), spec.InitContainers, func(c corev1.Container) map[string]any { return byName(c.Name) })...)
	errs = append(errs, duplicateKeys(sp.Child("ephemeralContainers"), spec.EphemeralContainers, func(c corev1.EphemeralContainer) map[string]any { return byName(c.Name) })...)
	for i := range spec.Containers {
		errs = append(errs, containerListMapKeys((*corev1.EphemeralContainerCommon)(&spec.Containers[i]), sp.Child("containers").Index(i))...)
	}
	for i := range spec.InitContainers {
		errs = append(errs, containerListMapKeys((*corev1.EphemeralContainerCommon)(&spec.InitContainers[i]), sp.Child("initContainers").Index(i))...)
	}
	for i := range spec.EphemeralContainers {
		errs = append(errs, containerListMapKeys(&spec.EphemeralContainers[i].EphemeralContainerCommon, sp.Child("ephemeralContainers").Index(i))...)
	}
	errs = append(errs, duplicateKeys(sp.Child("hostAliases"), spec.HostAliases, func(h corev1.HostAlias) map[string]any { return map[string]any{"ip": h.IP} })...)
	errs = append(errs, duplicateKeys(sp.Child("imagePullSecrets"), spec.ImagePullSecrets, func(r corev1.LocalObjectReference) map[string]any { return byName(r.Name) })...)
	errs = append(errs, duplicateKeys(sp.Child("resourceClaims"), spec.ResourceClaims, func(c corev1.PodResourceClaim) map[string]any { return byName(c.Name) })...)
	if spec.Resources != nil {
		errs = append(errs, duplicateKeys(sp.Child("resources", "claims"), spec.Resources.Claims, func(c corev1.ResourceClaim) map[string]any { return byName(c.Name) })...)
	}
	errs = append(errs, duplicateKeys(sp.Child("schedulingGates"), spec.SchedulingGates, func(g corev1.PodSchedulingGate) map[string]any { return byName(g.Name) })...)
	errs = append(errs, duplicateKeys(sp.Child("topologySpreadConstraints"), spec.TopologySpreadConstraints, func(c corev1.TopologySpreadConstraint) map[string]any {
		return map[string]any{"topologyKey": c.TopologyKey, "whenUnsatisfiable": string(c.WhenUnsatisfiable)}
	})...)
	errs = append(errs, duplicateKeys(sp.Child("volumes"), spec.Volumes, func(v corev1.Volume) map[string]any { return byName(v.Name) })...)
	return errs
}

// containerListMapKeys are the list-map rules inside one container (regular, init or ephemeral:
// they share their fields).
func containerListMapKeys(c *corev1.EphemeralContainerCommon, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	errs = append(errs, duplicateKeys(p.Child("env"), c.Env, func(e corev1.EnvVar) map[string]any { return map[string]any{"name": e.Name} })...)
	errs = append(errs, duplicateKeys(p.Child("ports"), c.Ports, func(port corev1.ContainerPort) map[string]any {
		protocol := port.Protocol
		if protocol == "" {
			protocol = corev1.ProtocolTCP // the CRD's default
		}
		return map[string]any{"containerPort": int64(port.ContainerPort), "protocol": string(protocol)}
	})...)
	errs = append(errs, duplicateKeys(p.Child("resources", "claims"), c.Resources.Claims, func(rc corev1.ResourceClaim) map[string]any { return map[string]any{"name": rc.Name} })...)
	errs = append(errs, duplicateKeys(p.Child("volumeDevices"), c.VolumeDevices, func(d corev1.VolumeDevice) map[string]any { return map[string]any{"devicePath": d.DevicePath} })...)
	errs = append(errs, duplicateKeys(p.Child("volumeMounts"), c.VolumeMounts, func(m corev1.VolumeMount) map[string]any { return map[string]any{"mountPath": m.MountPath} })...)
	for i, rule := range c.RestartPolicyRules {
		if rule.ExitCodes == nil {
			continue
		}
		// x-kubernetes-list-type: set: a value's second occurrence.
		vp := p.Child("restartPolicyRules").Index(i).Child("exitCodes", "values")
		seen := map[int32]int{}
		for j, v := range rule.ExitCodes.Values {
			if seen[v]++; seen[v] == 2 {
				errs = append(errs, field.Duplicate(vp.Index(j), int64(v)))
			}
		}
	}
	return errs
}

// duplicateKeys reports the second occurrence of each key of a list-map.
func duplicateKeys[T any](p *field.Path, items []T, key func(T) map[string]any) field.ErrorList {
	if len(items) < 2 {
		return nil
	}
	var errs field.ErrorList
	seen := make(map[string]int, len(items))
	for i, item := range items {
		k := key(item)
		b, _ := json.Marshal(k) // sorted keys: one spelling per key value
		if seen[string(b)]++; seen[string(b)] == 2 {
			errs = append(errs, field.Duplicate(p.Index(i), k))
		}
	}
	return errs
}
