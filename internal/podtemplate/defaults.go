package podtemplate

import (
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// applyServerDefaults mutates tpl (a private deep copy) the way kube-apiserver
// does for a StatefulSet before validation: the generated apps/v1 object
// defaulters (pkg/apis/apps/v1/zz_generated.defaults.go, which call
// pkg/apis/core/v1/defaults.go) followed by the strategy's
// pod.DropDisabledTemplateFields for feature gates that are off in v1.37.
// Leaving a defaulted field out must never be an error.
//
// Port of k8s.io/kubernetes@v1.37.2 pkg/apis/apps/v1/zz_generated.defaults.go SetObjectDefaults_StatefulSet
// (the template part), pkg/apis/core/v1/defaults.go SetDefaults_PodSpec (inline below) and
// pkg/api/pod/util.go DropDisabledTemplateFields; it combines them.
func applyServerDefaults(spec *corev1.PodSpec) {
	// Port of k8s.io/kubernetes@v1.37.2 pkg/apis/core/v1/defaults.go SetDefaults_PodSpec.
	if spec.ServiceAccountName == "" {
		spec.ServiceAccountName = spec.DeprecatedServiceAccount //nolint:staticcheck // mirrors the server
	}
	spec.DeprecatedServiceAccount = spec.ServiceAccountName //nolint:staticcheck // mirrors the server
	if spec.DNSPolicy == "" {
		spec.DNSPolicy = corev1.DNSClusterFirst
	}
	if spec.RestartPolicy == "" {
		spec.RestartPolicy = corev1.RestartPolicyAlways
	}
	if spec.SecurityContext == nil {
		spec.SecurityContext = &corev1.PodSecurityContext{}
	}
	if spec.TerminationGracePeriodSeconds == nil {
		v := int64(corev1.DefaultTerminationGracePeriodSeconds)
		spec.TerminationGracePeriodSeconds = &v
	}
	if spec.SchedulerName == "" {
		spec.SchedulerName = corev1.DefaultSchedulerName
	}

	for i := range spec.Volumes {
		defaultVolume(&spec.Volumes[i])
	}
	for i := range spec.InitContainers {
		defaultContainer(&spec.InitContainers[i])
	}
	for i := range spec.Containers {
		defaultContainer(&spec.Containers[i])
	}
	for i := range spec.EphemeralContainers {
		defaultContainer((*corev1.Container)(&spec.EphemeralContainers[i].EphemeralContainerCommon))
	}
	SetDefaults_ResourceList(spec.Overhead)
	if spec.Resources != nil {
		SetDefaults_ResourceList(spec.Resources.Limits)
		SetDefaults_ResourceList(spec.Resources.Requests)
	}

	dropDisabledFields(spec)
}

// SetDefaults_ResourceList rounds the values up to milli scale.
//
// Port of k8s.io/kubernetes@v1.37.2 pkg/apis/core/v1/defaults.go SetDefaults_ResourceList.
func SetDefaults_ResourceList(rl corev1.ResourceList) {
	for k, v := range rl {
		v.RoundUp(-3)
		rl[k] = v
	}
}

// defaultVolume applies the volume and per-source defaulters; it combines several upstream functions.
//
// Port of k8s.io/kubernetes@v1.37.2 pkg/apis/core/v1/defaults.go SetDefaults_Volume,
// SetDefaults_SecretVolumeSource, SetDefaults_ConfigMapVolumeSource, SetDefaults_DownwardAPIVolumeSource,
// SetDefaults_ProjectedVolumeSource, SetDefaults_ServiceAccountTokenProjection, SetDefaults_HostPathVolumeSource
// and the other per-source defaulters that pkg/apis/core/v1/zz_generated.defaults.go calls for a volume.
func defaultVolume(v *corev1.Volume) {
	vs := &v.VolumeSource
	if allVolumeSourcesNil(vs) {
		vs.EmptyDir = &corev1.EmptyDirVolumeSource{}
	}
	if vs.Image != nil && vs.Image.PullPolicy == "" {
		vs.Image.PullPolicy = defaultPullPolicy(vs.Image.Reference)
	}
	if vs.HostPath != nil && vs.HostPath.Type == nil {
		t := corev1.HostPathUnset
		vs.HostPath.Type = &t
	}
	if vs.Secret != nil && vs.Secret.DefaultMode == nil {
		m := corev1.SecretVolumeSourceDefaultMode
		vs.Secret.DefaultMode = &m
	}
	if vs.ConfigMap != nil && vs.ConfigMap.DefaultMode == nil {
		m := corev1.ConfigMapVolumeSourceDefaultMode
		vs.ConfigMap.DefaultMode = &m
	}
	if vs.DownwardAPI != nil {
		if vs.DownwardAPI.DefaultMode == nil {
			m := corev1.DownwardAPIVolumeSourceDefaultMode
			vs.DownwardAPI.DefaultMode = &m
		}
		for i := range vs.DownwardAPI.Items {
			SetDefaults_ObjectFieldSelector(vs.DownwardAPI.Items[i].FieldRef)
		}
	}
	if vs.Projected != nil {
		if vs.Projected.DefaultMode == nil {
			m := corev1.ProjectedVolumeSourceDefaultMode
			vs.Projected.DefaultMode = &m
		}
		for i := range vs.Projected.Sources {
			src := &vs.Projected.Sources[i]
			if src.DownwardAPI != nil {
				for j := range src.DownwardAPI.Items {
					SetDefaults_ObjectFieldSelector(src.DownwardAPI.Items[j].FieldRef)
				}
			}
			if src.ServiceAccountToken != nil && src.ServiceAccountToken.ExpirationSeconds == nil {
				h := int64(3600)
				src.ServiceAccountToken.ExpirationSeconds = &h
			}
		}
	}
	if vs.ISCSI != nil && vs.ISCSI.ISCSIInterface == "" {
		vs.ISCSI.ISCSIInterface = "default"
	}
	if vs.RBD != nil {
		if vs.RBD.RBDPool == "" {
			vs.RBD.RBDPool = "rbd"
		}
		if vs.RBD.RadosUser == "" {
			vs.RBD.RadosUser = "admin"
		}
		if vs.RBD.Keyring == "" {
			vs.RBD.Keyring = "/etc/ceph/keyring"
		}
	}
	if vs.AzureDisk != nil {
		if vs.AzureDisk.CachingMode == nil {
			m := corev1.AzureDataDiskCachingReadWrite
			vs.AzureDisk.CachingMode = &m
		}
		if vs.AzureDisk.Kind == nil {
			k := corev1.AzureSharedBlobDisk
			vs.AzureDisk.Kind = &k
		}
		if vs.AzureDisk.FSType == nil {
			f := "ext4"
			vs.AzureDisk.FSType = &f
		}
		if vs.AzureDisk.ReadOnly == nil {
			f := false
			vs.AzureDisk.ReadOnly = &f
		}
	}
	if vs.ScaleIO != nil {
		if vs.ScaleIO.StorageMode == "" {
			vs.ScaleIO.StorageMode = "ThinProvisioned"
		}
		if vs.ScaleIO.FSType == "" {
			vs.ScaleIO.FSType = "xfs"
		}
	}
	if vs.Ephemeral != nil && vs.Ephemeral.VolumeClaimTemplate != nil {
		defaultPVCSpec(&vs.Ephemeral.VolumeClaimTemplate.Spec)
	}
}

// defaultPVCSpec defaults a claim spec and rounds its resources; it combines two upstream functions.
//
// Port of k8s.io/kubernetes@v1.37.2 pkg/apis/core/v1/defaults.go SetDefaults_PersistentVolumeClaimSpec
// and SetDefaults_ResourceList.
func defaultPVCSpec(s *corev1.PersistentVolumeClaimSpec) {
	if s.VolumeMode == nil {
		m := corev1.PersistentVolumeFilesystem
		s.VolumeMode = &m
	}
	SetDefaults_ResourceList(s.Resources.Limits)
	SetDefaults_ResourceList(s.Resources.Requests)
}

// allVolumeSourcesNil reports whether no source is set, the test SetDefaults_Volume makes with
// AllPtrFieldsNil before defaulting to emptyDir.
//
// Port of k8s.io/kubernetes@v1.37.2 pkg/apis/core/v1/defaults.go SetDefaults_Volume (its source test).
func allVolumeSourcesNil(vs *corev1.VolumeSource) bool {
	return vs.HostPath == nil && vs.EmptyDir == nil && vs.GCEPersistentDisk == nil &&
		vs.AWSElasticBlockStore == nil && vs.GitRepo == nil && vs.Secret == nil && //nolint:staticcheck // deprecated sources still count
		vs.NFS == nil && vs.ISCSI == nil && vs.Glusterfs == nil && vs.PersistentVolumeClaim == nil && //nolint:staticcheck
		vs.RBD == nil && vs.FlexVolume == nil && vs.Cinder == nil && vs.CephFS == nil && //nolint:staticcheck
		vs.Flocker == nil && vs.DownwardAPI == nil && vs.FC == nil && vs.AzureFile == nil && //nolint:staticcheck
		vs.ConfigMap == nil && vs.VsphereVolume == nil && vs.Quobyte == nil && vs.AzureDisk == nil && //nolint:staticcheck
		vs.PhotonPersistentDisk == nil && vs.Projected == nil && vs.PortworxVolume == nil && //nolint:staticcheck
		vs.ScaleIO == nil && vs.StorageOS == nil && vs.CSI == nil && vs.Ephemeral == nil && vs.Image == nil //nolint:staticcheck
}

// defaultPullPolicy is the imagePullPolicy part of SetDefaults_Container: Always for ":latest" or an
// untagged, undigested reference, IfNotPresent otherwise. Both values are valid, so an approximate parse is
// enough here.
//
// Port of k8s.io/kubernetes@v1.37.2 pkg/apis/core/v1/defaults.go SetDefaults_Container (imagePullPolicy part).
func defaultPullPolicy(image string) corev1.PullPolicy {
	ref := image
	if i := strings.Index(ref, "@"); i >= 0 {
		return corev1.PullIfNotPresent
	}
	lastSlash := strings.LastIndex(ref, "/")
	if c := strings.LastIndex(ref, ":"); c > lastSlash {
		if ref[c+1:] == "latest" {
			return corev1.PullAlways
		}
		return corev1.PullIfNotPresent
	}
	return corev1.PullAlways
}

// SetDefaults_ObjectFieldSelector defaults fieldRef.apiVersion to v1.
//
// Port of k8s.io/kubernetes@v1.37.2 pkg/apis/core/v1/defaults.go SetDefaults_ObjectFieldSelector.
func SetDefaults_ObjectFieldSelector(f *corev1.ObjectFieldSelector) {
	if f != nil && f.APIVersion == "" {
		f.APIVersion = "v1"
	}
}

// defaultContainer applies the container, port, env, probe and handler defaulters and resource rounding to
// every container kind; it combines several upstream functions.
//
// Port of k8s.io/kubernetes@v1.37.2 pkg/apis/core/v1/defaults.go SetDefaults_Container,
// SetDefaults_Probe, SetDefaults_HTTPGetAction, SetDefaults_ObjectFieldSelector and SetDefaults_ResourceList, as
// pkg/apis/core/v1/zz_generated.defaults.go calls them for a container.
func defaultContainer(c *corev1.Container) {
	if c.ImagePullPolicy == "" {
		c.ImagePullPolicy = defaultPullPolicy(c.Image)
	}
	if c.TerminationMessagePath == "" {
		c.TerminationMessagePath = corev1.TerminationMessagePathDefault
	}
	if c.TerminationMessagePolicy == "" {
		c.TerminationMessagePolicy = corev1.TerminationMessageReadFile
	}
	for i := range c.Ports {
		if c.Ports[i].Protocol == "" {
			c.Ports[i].Protocol = corev1.ProtocolTCP
		}
	}
	for i := range c.Env {
		if vf := c.Env[i].ValueFrom; vf != nil {
			SetDefaults_ObjectFieldSelector(vf.FieldRef)
			if vf.FileKeyRef != nil && vf.FileKeyRef.Optional == nil {
				f := false
				vf.FileKeyRef.Optional = &f
			}
		}
	}
	defaultProbe(c.LivenessProbe)
	defaultProbe(c.ReadinessProbe)
	defaultProbe(c.StartupProbe)
	if c.Lifecycle != nil {
		if c.Lifecycle.PostStart != nil {
			SetDefaults_HTTPGetAction(c.Lifecycle.PostStart.HTTPGet)
		}
		if c.Lifecycle.PreStop != nil {
			SetDefaults_HTTPGetAction(c.Lifecycle.PreStop.HTTPGet)
		}
	}
	SetDefaults_ResourceList(c.Resources.Limits)
	SetDefaults_ResourceList(c.Resources.Requests)
}

// defaultProbe defaults a probe, its httpGet and its grpc.service; it combines several upstream functions.
//
// Port of k8s.io/kubernetes@v1.37.2 pkg/apis/core/v1/defaults.go SetDefaults_Probe
// and SetDefaults_HTTPGetAction, with the grpc.service default of pkg/apis/core/v1/zz_generated.defaults.go.
func defaultProbe(p *corev1.Probe) {
	if p == nil {
		return
	}
	if p.TimeoutSeconds == 0 {
		p.TimeoutSeconds = 1
	}
	if p.PeriodSeconds == 0 {
		p.PeriodSeconds = 10
	}
	if p.SuccessThreshold == 0 {
		p.SuccessThreshold = 1
	}
	if p.FailureThreshold == 0 {
		p.FailureThreshold = 3
	}
	SetDefaults_HTTPGetAction(p.HTTPGet)
	if p.GRPC != nil && p.GRPC.Service == nil {
		s := ""
		p.GRPC.Service = &s
	}
}

// SetDefaults_HTTPGetAction defaults path and scheme of an httpGet action.
//
// Port of k8s.io/kubernetes@v1.37.2 pkg/apis/core/v1/defaults.go SetDefaults_HTTPGetAction.
func SetDefaults_HTTPGetAction(h *corev1.HTTPGetAction) {
	if h == nil {
		return
	}
	if h.Path == "" {
		h.Path = "/"
	}
	if h.Scheme == "" {
		h.Scheme = corev1.URISchemeHTTP
	}
}

// dropDisabledFields clears the fields whose feature gates are off by default in v1.37 (create, no old
// object): such fields are silently cleared, never rejected. Only those parts of the upstream function are
// ported.
//
// Port of k8s.io/kubernetes@v1.37.2 pkg/api/pod/util.go dropDisabledFields.
func dropDisabledFields(spec *corev1.PodSpec) {
	spec.SchedulingGroup = nil    // GenericWorkload (beta, off)
	spec.EvictionResponders = nil // EvictionRequestAPI (alpha)
	for i := range spec.Volumes {
		vs := &spec.Volumes[i].VolumeSource
		if vs.EmptyDir != nil {
			vs.EmptyDir.Mode = nil // EmptyDirVolumeMode (alpha)
		}
		dropVolumeUserFields(vs) // AtomicWriteVolumeUserFields (alpha)
	}
	visit := func(c *corev1.Container) {
		for j := range c.VolumeMounts {
			c.VolumeMounts[j].BindMountOptions = nil // VolumeBindMountOptions (alpha)
		}
		if c.Lifecycle != nil {
			c.Lifecycle.StopSignal = nil // ContainerStopSignals (alpha)
			if c.Lifecycle.PostStart == nil && c.Lifecycle.PreStop == nil {
				c.Lifecycle = nil
			}
			if c.Lifecycle != nil {
				dropHandlerProtocol(c.Lifecycle.PostStart)
				dropHandlerProtocol(c.Lifecycle.PreStop)
			}
		}
		for _, p := range []*corev1.Probe{c.LivenessProbe, c.ReadinessProbe, c.StartupProbe} {
			if p == nil {
				continue
			}
			if p.HTTPGet != nil {
				p.HTTPGet.Protocol = nil // H2CContainerProbe (alpha)
			}
			if p.GRPC != nil {
				p.GRPC.Mode = nil // GRPCContainerProbeTLS (alpha)
			}
		}
	}
	for i := range spec.InitContainers {
		visit(&spec.InitContainers[i])
	}
	for i := range spec.Containers {
		visit(&spec.Containers[i])
	}
	for i := range spec.EphemeralContainers {
		visit((*corev1.Container)(&spec.EphemeralContainers[i].EphemeralContainerCommon))
	}
}

// dropHandlerProtocol clears httpGet.protocol of one lifecycle handler. It keeps its own name: upstream
// clears all handlers and probes of a pod spec in one function.
//
// Port of k8s.io/kubernetes@v1.37.2 pkg/api/pod/util.go dropHTTPProbeProtocol (one handler).
func dropHandlerProtocol(h *corev1.LifecycleHandler) {
	if h != nil && h.HTTPGet != nil {
		h.HTTPGet.Protocol = nil
	}
}

// dropVolumeUserFields clears the defaultUser and user fields of one volume source. It keeps its own name:
// upstream walks the whole pod spec.
//
// Port of k8s.io/kubernetes@v1.37.2 pkg/api/pod/util.go dropDisabledAtomicWriteVolumeUserFields
// (one volume), with dropUserFieldsInKeyToPaths and dropUserFieldsInDownwardAPIVolumeFiles.
func dropVolumeUserFields(vs *corev1.VolumeSource) {
	if vs.Secret != nil {
		vs.Secret.DefaultUser = nil
		for i := range vs.Secret.Items {
			vs.Secret.Items[i].User = nil
		}
	}
	if vs.ConfigMap != nil {
		vs.ConfigMap.DefaultUser = nil
		for i := range vs.ConfigMap.Items {
			vs.ConfigMap.Items[i].User = nil
		}
	}
	if vs.DownwardAPI != nil {
		vs.DownwardAPI.DefaultUser = nil
		for i := range vs.DownwardAPI.Items {
			vs.DownwardAPI.Items[i].User = nil
		}
	}
	if vs.Projected != nil {
		vs.Projected.DefaultUser = nil
		for i := range vs.Projected.Sources {
			s := &vs.Projected.Sources[i]
			if s.Secret != nil {
				for j := range s.Secret.Items {
					s.Secret.Items[j].User = nil
				}
			}
			if s.ConfigMap != nil {
				for j := range s.ConfigMap.Items {
					s.ConfigMap.Items[j].User = nil
				}
			}
			if s.DownwardAPI != nil {
				for j := range s.DownwardAPI.Items {
					s.DownwardAPI.Items[j].User = nil
				}
			}
			if s.ServiceAccountToken != nil {
				s.ServiceAccountToken.User = nil
			}
			if s.ClusterTrustBundle != nil {
				s.ClusterTrustBundle.User = nil
			}
			if s.PodCertificate != nil {
				s.PodCertificate.User = nil
			}
		}
	}
}
