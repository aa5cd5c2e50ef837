package podtemplate

import (
	"net"
	"path"
	"path/filepath"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

const fileModeErrorMsg = "must be a number between 0 and 0777 (octal), both inclusive"

// ValidateVolumes requires DNS-label unique names and exactly one source. Only valid volumes are returned for
// mount matching, as the server does.
//
// Port of k8s.io/kubernetes@v1.37.2 pkg/apis/core/validation/validation.go ValidateVolumes.
func ValidateVolumes(volumes []corev1.Volume, fldPath *field.Path) (map[string]corev1.VolumeSource, field.ErrorList) {
	var allErrs field.ErrorList
	vols := make(map[string]corev1.VolumeSource, len(volumes))
	names := map[string]bool{}
	for i := range volumes {
		v := &volumes[i]
		p := fldPath.Index(i)
		el := validateVolumeSource(&v.VolumeSource, p, v.Name)
		if v.Name == "" {
			el = append(el, field.Required(p.Child("name"), ""))
		} else {
			el = append(el, ValidateDNS1123Label(v.Name, p.Child("name"))...)
		}
		if names[v.Name] {
			el = append(el, field.Duplicate(p.Child("name"), v.Name))
		}
		if len(el) == 0 {
			names[v.Name] = true
			vols[v.Name] = v.VolumeSource
		} else {
			allErrs = append(allErrs, el...)
		}
	}
	return vols, allErrs
}

// validateVolumeSource validates one volume source: the first source set wins, every further one is
// Forbidden.
//
// Port of k8s.io/kubernetes@v1.37.2 pkg/apis/core/validation/validation.go validateVolumeSource.
func validateVolumeSource(s *corev1.VolumeSource, p *field.Path, volName string) field.ErrorList {
	var allErrs field.ErrorList
	n := 0
	// one registers a source; it reports Forbidden for every source after the first.
	one := func(set bool, name string, check func() field.ErrorList) {
		if !set {
			return
		}
		if n > 0 {
			allErrs = append(allErrs, field.Forbidden(p.Child(name), "may not specify more than 1 volume type"))
			return
		}
		n++
		allErrs = append(allErrs, check()...)
	}
	if s.EmptyDir != nil {
		n++
		if s.EmptyDir.SizeLimit != nil && s.EmptyDir.SizeLimit.Cmp(resource.Quantity{}) < 0 {
			allErrs = append(allErrs, field.Forbidden(p.Child("emptyDir", "sizeLimit"), "SizeLimit field must be a valid resource quantity"))
		}
	}
	one(s.HostPath != nil, "hostPath", func() field.ErrorList {
		hp := p.Child("hostPath")
		if s.HostPath.Path == "" {
			return field.ErrorList{field.Required(hp.Child("path"), "")}
		}
		el := validatePathNoBacksteps(s.HostPath.Path, hp.Child("path"))
		if t := s.HostPath.Type; t != nil && !supportedHostPathTypes[*t] {
			el = append(el, field.NotSupported(hp.Child("type"), *t, []string{"", "BlockDevice", "CharDevice", "Directory", "DirectoryOrCreate", "File", "FileOrCreate", "Socket"}))
		}
		return el
	})
	one(s.GitRepo != nil, "gitRepo", func() field.ErrorList { //nolint:staticcheck // deprecated but still accepted
		var el field.ErrorList
		if s.GitRepo.Repository == "" { //nolint:staticcheck
			el = append(el, field.Required(p.Child("gitRepo", "repository"), ""))
		}
		return append(el, validateLocalDescendingPath(s.GitRepo.Directory, p.Child("gitRepo", "directory"))...) //nolint:staticcheck
	})
	one(s.GCEPersistentDisk != nil, "gcePersistentDisk", func() field.ErrorList { //nolint:staticcheck
		var el field.ErrorList
		pp := p.Child("persistentDisk")       // sic: the server uses this path
		if s.GCEPersistentDisk.PDName == "" { //nolint:staticcheck
			el = append(el, field.Required(pp.Child("pdName"), ""))
		}
		if s.GCEPersistentDisk.Partition < 0 || s.GCEPersistentDisk.Partition > 255 { //nolint:staticcheck
			el = append(el, field.Invalid(pp.Child("partition"), s.GCEPersistentDisk.Partition, validation.InclusiveRangeError(1, 255))) //nolint:staticcheck
		}
		return el
	})
	one(s.AWSElasticBlockStore != nil, "awsElasticBlockStore", func() field.ErrorList { //nolint:staticcheck
		var el field.ErrorList
		pp := p.Child("awsElasticBlockStore")
		if s.AWSElasticBlockStore.VolumeID == "" { //nolint:staticcheck
			el = append(el, field.Required(pp.Child("volumeID"), ""))
		}
		if s.AWSElasticBlockStore.Partition < 0 || s.AWSElasticBlockStore.Partition > 255 { //nolint:staticcheck
			el = append(el, field.Invalid(pp.Child("partition"), s.AWSElasticBlockStore.Partition, validation.InclusiveRangeError(1, 255))) //nolint:staticcheck
		}
		return el
	})
	one(s.Secret != nil, "secret", func() field.ErrorList {
		// validateSecretVolumeSource
		pp := p.Child("secret")
		var el field.ErrorList
		if s.Secret.SecretName == "" {
			el = append(el, field.Required(pp.Child("secretName"), ""))
		}
		el = append(el, validateMode(s.Secret.DefaultMode, pp.Child("defaultMode"))...)
		for i := range s.Secret.Items {
			el = append(el, validateKeyToPath(&s.Secret.Items[i], pp.Child("items").Index(i))...)
		}
		return el
	})
	one(s.NFS != nil, "nfs", func() field.ErrorList {
		// validateNFSVolumeSource
		pp := p.Child("nfs")
		var el field.ErrorList
		if s.NFS.Server == "" {
			el = append(el, field.Required(pp.Child("server"), ""))
		}
		if s.NFS.Path == "" {
			el = append(el, field.Required(pp.Child("path"), ""))
		}
		if !path.IsAbs(s.NFS.Path) {
			el = append(el, field.Invalid(pp.Child("path"), s.NFS.Path, "must be an absolute path"))
		}
		return el
	})
	one(s.ISCSI != nil, "iscsi", func() field.ErrorList { return validateISCSIVolumeSource(s.ISCSI, p.Child("iscsi")) })
	if s.ISCSI != nil && s.ISCSI.InitiatorName != nil && len(volName+":"+s.ISCSI.TargetPortal) > 64 {
		allErrs = append(allErrs, field.Invalid(p.Child("name"), volName, "Total length of <volume name>:<iscsi.targetPortal> must be under 64 characters if iscsi.initiatorName is specified."))
	}
	one(s.Glusterfs != nil, "glusterfs", func() field.ErrorList { //nolint:staticcheck
		return requireAll(p.Child("glusterfs"), "endpoints", s.Glusterfs.EndpointsName, "path", s.Glusterfs.Path) //nolint:staticcheck
	})
	one(s.Flocker != nil, "flocker", func() field.ErrorList { //nolint:staticcheck
		f, pp := s.Flocker, p.Child("flocker") //nolint:staticcheck
		var el field.ErrorList
		if f.DatasetName == "" && f.DatasetUUID == "" {
			el = append(el, field.Required(pp, "one of datasetName and datasetUUID is required"))
		}
		if f.DatasetName != "" && f.DatasetUUID != "" {
			el = append(el, field.Invalid(pp, "resource", "datasetName and datasetUUID can not be specified simultaneously"))
		}
		if strings.Contains(f.DatasetName, "/") {
			el = append(el, field.Invalid(pp.Child("datasetName"), f.DatasetName, "must not contain '/'"))
		}
		return el
	})
	one(s.PersistentVolumeClaim != nil, "persistentVolumeClaim", func() field.ErrorList {
		return requireAll(p.Child("persistentVolumeClaim"), "claimName", s.PersistentVolumeClaim.ClaimName)
	})
	one(s.RBD != nil, "rbd", func() field.ErrorList { //nolint:staticcheck
		var el field.ErrorList
		if len(s.RBD.CephMonitors) == 0 { //nolint:staticcheck
			el = append(el, field.Required(p.Child("rbd", "monitors"), ""))
		}
		return append(el, requireAll(p.Child("rbd"), "image", s.RBD.RBDImage)...) //nolint:staticcheck
	})
	one(s.Cinder != nil, "cinder", func() field.ErrorList { //nolint:staticcheck
		el := requireAll(p.Child("cinder"), "volumeID", s.Cinder.VolumeID) //nolint:staticcheck
		if s.Cinder.SecretRef != nil && s.Cinder.SecretRef.Name == "" {    //nolint:staticcheck
			el = append(el, field.Required(p.Child("cinder", "secretRef", "name"), ""))
		}
		return el
	})
	one(s.CephFS != nil, "cephFS", func() field.ErrorList { //nolint:staticcheck
		if len(s.CephFS.Monitors) == 0 { //nolint:staticcheck
			return field.ErrorList{field.Required(p.Child("cephfs", "monitors"), "")}
		}
		return nil
	})
	one(s.Quobyte != nil, "quobyte", func() field.ErrorList { return validateQuobyteVolumeSource(s.Quobyte, p.Child("quobyte")) }) //nolint:staticcheck
	one(s.DownwardAPI != nil, "downwarAPI", func() field.ErrorList {                                                               // sic: the server's path typo
		pp := p.Child("downwardAPI")
		el := validateMode(s.DownwardAPI.DefaultMode, pp.Child("defaultMode"))
		for i := range s.DownwardAPI.Items {
			el = append(el, validateDownwardAPIVolumeFile(&s.DownwardAPI.Items[i], pp)...)
		}
		return el
	})
	one(s.FC != nil, "fc", func() field.ErrorList { return validateFCVolumeSource(s.FC, p.Child("fc")) })
	one(s.FlexVolume != nil, "flexVolume", func() field.ErrorList { return validateFlexVolumeSource(s.FlexVolume, p.Child("flexVolume")) })
	one(s.ConfigMap != nil, "configMap", func() field.ErrorList {
		// validateConfigMapVolumeSource
		pp := p.Child("configMap")
		var el field.ErrorList
		if s.ConfigMap.Name == "" {
			el = append(el, field.Required(pp.Child("name"), ""))
		}
		el = append(el, validateMode(s.ConfigMap.DefaultMode, pp.Child("defaultMode"))...)
		for i := range s.ConfigMap.Items {
			el = append(el, validateKeyToPath(&s.ConfigMap.Items[i], pp.Child("items").Index(i))...)
		}
		return el
	})
	one(s.AzureFile != nil, "azureFile", func() field.ErrorList { //nolint:staticcheck
		return requireAll(p.Child("azureFile"), "secretName", s.AzureFile.SecretName, "shareName", s.AzureFile.ShareName) //nolint:staticcheck
	})
	one(s.VsphereVolume != nil, "vsphereVolume", func() field.ErrorList { //nolint:staticcheck
		return requireAll(p.Child("vsphereVolume"), "volumePath", s.VsphereVolume.VolumePath) //nolint:staticcheck
	})
	one(s.PhotonPersistentDisk != nil, "photonPersistentDisk", func() field.ErrorList { //nolint:staticcheck
		return requireAll(p.Child("photonPersistentDisk"), "pdID", s.PhotonPersistentDisk.PdID) //nolint:staticcheck
	})
	one(s.PortworxVolume != nil, "portworxVolume", func() field.ErrorList { //nolint:staticcheck
		return requireAll(p.Child("portworxVolume"), "volumeID", s.PortworxVolume.VolumeID) //nolint:staticcheck
	})
	one(s.AzureDisk != nil, "azureDisk", func() field.ErrorList { return validateAzureDisk(s.AzureDisk, p.Child("azureDisk")) })             //nolint:staticcheck
	one(s.StorageOS != nil, "storageos", func() field.ErrorList { return validateStorageOSVolumeSource(s.StorageOS, p.Child("storageos")) }) //nolint:staticcheck
	one(s.Projected != nil, "projected", func() field.ErrorList { return validateProjectedVolumeSource(s.Projected, p.Child("projected")) })
	one(s.ScaleIO != nil, "scaleIO", func() field.ErrorList { //nolint:staticcheck
		return requireAll(p.Child("scaleIO"), "gateway", s.ScaleIO.Gateway, "system", s.ScaleIO.System, "volumeName", s.ScaleIO.VolumeName) //nolint:staticcheck
	})
	one(s.CSI != nil, "csi", func() field.ErrorList { return validateCSIVolumeSource(s.CSI, p.Child("csi")) })
	one(s.Ephemeral != nil, "ephemeral", func() field.ErrorList {
		// validateEphemeralVolumeSource
		pp := p.Child("ephemeral")
		if s.Ephemeral.VolumeClaimTemplate == nil {
			return field.ErrorList{field.Required(pp.Child("volumeClaimTemplate"), "")}
		}
		return ValidatePersistentVolumeClaimTemplate(s.Ephemeral.VolumeClaimTemplate, pp.Child("volumeClaimTemplate"))
	})
	one(s.Image != nil, "image", func() field.ErrorList {
		// validateImageVolumeSource
		pp := p.Child("image")
		var el field.ErrorList
		if s.Image.Reference == "" {
			el = append(el, field.Required(pp.Child("reference"), ""))
		}
		return append(el, validatePullPolicy(s.Image.PullPolicy, pp.Child("pullPolicy"))...)
	})
	if n == 0 {
		allErrs = append(allErrs, field.Required(p, "must specify a volume type"))
	}
	return allErrs
}

// requireAll reports Required for each (child, value) pair whose value is empty.
func requireAll(p *field.Path, kv ...string) field.ErrorList {
	var el field.ErrorList
	for i := 0; i+1 < len(kv); i += 2 {
		if kv[i+1] == "" {
			el = append(el, field.Required(p.Child(kv[i]), ""))
		}
	}
	return el
}

var supportedHostPathTypes = map[corev1.HostPathType]bool{
	corev1.HostPathUnset: true, corev1.HostPathDirectoryOrCreate: true, corev1.HostPathDirectory: true,
	corev1.HostPathFileOrCreate: true, corev1.HostPathFile: true, corev1.HostPathSocket: true,
	corev1.HostPathCharDev: true, corev1.HostPathBlockDev: true,
}

func validateMode(m *int32, p *field.Path) field.ErrorList {
	if m != nil && (*m > 0777 || *m < 0) {
		return field.ErrorList{field.Invalid(p, *m, fileModeErrorMsg)}
	}
	return nil
}

// validateKeyToPath validates one items entry of a secret, configMap or projection.
//
// Port of k8s.io/kubernetes@v1.37.2 pkg/apis/core/validation/validation.go validateKeyToPath.
func validateKeyToPath(kp *corev1.KeyToPath, p *field.Path) field.ErrorList {
	var el field.ErrorList
	if kp.Key == "" {
		el = append(el, field.Required(p.Child("key"), ""))
	}
	if kp.Path == "" {
		el = append(el, field.Required(p.Child("path"), ""))
	}
	el = append(el, ValidateLocalNonReservedPath(kp.Path, p.Child("path"))...)
	return append(el, validateMode(kp.Mode, p.Child("mode"))...)
}

// validateDownwardAPIVolumeFile validates one downwardAPI item (errors sit on the volume path, as upstream).
//
// Port of k8s.io/kubernetes@v1.37.2 pkg/apis/core/validation/validation.go validateDownwardAPIVolumeFile.
func validateDownwardAPIVolumeFile(f *corev1.DownwardAPIVolumeFile, p *field.Path) field.ErrorList {
	var el field.ErrorList
	if f.Path == "" {
		el = append(el, field.Required(p.Child("path"), ""))
	}
	el = append(el, ValidateLocalNonReservedPath(f.Path, p.Child("path"))...)
	switch {
	case f.FieldRef != nil:
		el = append(el, validateObjectFieldSelector(f.FieldRef, validVolumeFieldPaths, p.Child("fieldRef"))...)
		if f.ResourceFieldRef != nil {
			el = append(el, field.Invalid(p, "resource", "fieldRef and resourceFieldRef can not be specified simultaneously"))
		}
	case f.ResourceFieldRef != nil:
		el = append(el, validateContainerResourceFieldSelector(f.ResourceFieldRef, p.Child("resourceFieldRef"), true)...)
	default:
		el = append(el, field.Required(p, "one of fieldRef and resourceFieldRef is required"))
	}
	return append(el, validateMode(f.Mode, p.Child("mode"))...)
}

// validateLocalDescendingPath requires a relative path without a '..' element.
//
// Port of k8s.io/kubernetes@v1.37.2 pkg/apis/core/validation/validation.go validateLocalDescendingPath.
func validateLocalDescendingPath(target string, p *field.Path) field.ErrorList {
	var el field.ErrorList
	if path.IsAbs(target) {
		el = append(el, field.Invalid(p, target, "must be a relative path"))
	}
	return append(el, validatePathNoBacksteps(target, p)...)
}

// validatePathNoBacksteps rejects a '..' path element.
//
// Port of k8s.io/kubernetes@v1.37.2 pkg/apis/core/validation/validation.go validatePathNoBacksteps.
func validatePathNoBacksteps(target string, p *field.Path) field.ErrorList {
	for _, part := range strings.Split(filepath.ToSlash(target), "/") {
		if part == ".." {
			return field.ErrorList{field.Invalid(p, target, "must not contain '..'")}
		}
	}
	return nil
}

// ValidateLocalNonReservedPath requires a local descending path that does not start with '..'.
//
// Port of k8s.io/kubernetes@v1.37.2 pkg/apis/core/validation/validation.go ValidateLocalNonReservedPath.
func ValidateLocalNonReservedPath(target string, p *field.Path) field.ErrorList {
	el := validateLocalDescendingPath(target, p)
	if strings.HasPrefix(target, "..") && !strings.HasPrefix(target, "../") {
		el = append(el, field.Invalid(p, target, "must not start with '..'"))
	}
	return el
}

// ValidateVolumeMounts validates volumeMounts (bindMountOptions are dropped: alpha gate off).
//
// Port of k8s.io/kubernetes@v1.37.2 pkg/apis/core/validation/validation.go ValidateVolumeMounts
// (signature differs: it takes the container and the valid volumes).
func ValidateVolumeMounts(c *corev1.Container, vols map[string]corev1.VolumeSource, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	devices := make(map[string]string, len(c.VolumeDevices))
	for _, d := range c.VolumeDevices {
		devices[d.Name] = d.DevicePath
	}
	mountpoints := map[string]bool{}
	for i, m := range c.VolumeMounts {
		p := fldPath.Index(i)
		if m.Name == "" {
			allErrs = append(allErrs, field.Required(p.Child("name"), ""))
		}
		if _, ok := vols[m.Name]; !ok {
			allErrs = append(allErrs, field.NotFound(p.Child("name"), m.Name))
		}
		if m.MountPath == "" {
			allErrs = append(allErrs, field.Required(p.Child("mountPath"), ""))
		}
		if mountpoints[m.MountPath] {
			allErrs = append(allErrs, field.Invalid(p.Child("mountPath"), m.MountPath, "must be unique"))
		}
		mountpoints[m.MountPath] = true
		if _, ok := devices[m.Name]; ok {
			allErrs = append(allErrs, field.Invalid(p.Child("name"), m.Name, "must not already exist in volumeDevices"))
		}
		for _, dp := range devices {
			if dp == m.MountPath {
				allErrs = append(allErrs, field.Invalid(p.Child("mountPath"), m.MountPath, "must not already exist as a path in volumeDevices"))
				break
			}
		}
		// The server reports subPath problems on the list path (volumeMounts.subPath), not the item.
		if m.SubPath != "" {
			allErrs = append(allErrs, validateLocalDescendingPath(m.SubPath, fldPath.Child("subPath"))...)
		}
		if m.SubPathExpr != "" {
			if m.SubPath != "" {
				allErrs = append(allErrs, field.Invalid(p.Child("subPathExpr"), m.SubPathExpr, "subPathExpr and subPath are mutually exclusive"))
			}
			allErrs = append(allErrs, validateLocalDescendingPath(m.SubPathExpr, fldPath.Child("subPathExpr"))...)
		}
		if m.MountPropagation != nil {
			allErrs = append(allErrs, validateMountPropagation(*m.MountPropagation, c, fldPath.Child("mountPropagation"))...)
		}
		allErrs = append(allErrs, validateMountRecursiveReadOnly(m, fldPath.Child("recursiveReadOnly"))...)
	}
	return allErrs
}

// validateMountPropagation validates mountPropagation (Bidirectional needs privileged).
//
// Port of k8s.io/kubernetes@v1.37.2 pkg/apis/core/validation/validation.go validateMountPropagation.
func validateMountPropagation(mp corev1.MountPropagationMode, c *corev1.Container, p *field.Path) field.ErrorList {
	var el field.ErrorList
	switch mp {
	case corev1.MountPropagationBidirectional, corev1.MountPropagationHostToContainer, corev1.MountPropagationNone:
	default:
		el = append(el, field.NotSupported(p, mp, []corev1.MountPropagationMode{corev1.MountPropagationBidirectional, corev1.MountPropagationHostToContainer, corev1.MountPropagationNone}))
	}
	privileged := c.SecurityContext != nil && c.SecurityContext.Privileged != nil && *c.SecurityContext.Privileged
	if mp == corev1.MountPropagationBidirectional && !privileged {
		el = append(el, field.Forbidden(p, "Bidirectional mount propagation is available only to privileged containers"))
	}
	return el
}

// validateMountRecursiveReadOnly validates recursiveReadOnly.
//
// Port of k8s.io/kubernetes@v1.37.2 pkg/apis/core/validation/validation.go validateMountRecursiveReadOnly.
func validateMountRecursiveReadOnly(m corev1.VolumeMount, p *field.Path) field.ErrorList {
	if m.RecursiveReadOnly == nil {
		return nil
	}
	var el field.ErrorList
	switch *m.RecursiveReadOnly {
	case corev1.RecursiveReadOnlyDisabled:
	case corev1.RecursiveReadOnlyEnabled, corev1.RecursiveReadOnlyIfPossible:
		if !m.ReadOnly {
			el = append(el, field.Forbidden(p, "may only be specified when readOnly is true"))
		}
		if m.MountPropagation != nil && *m.MountPropagation != corev1.MountPropagationNone {
			el = append(el, field.Forbidden(p, "may only be specified when mountPropagation is None or not specified"))
		}
	default:
		el = append(el, field.NotSupported(p, *m.RecursiveReadOnly, []corev1.RecursiveReadOnlyMode{corev1.RecursiveReadOnlyDisabled, corev1.RecursiveReadOnlyIfPossible, corev1.RecursiveReadOnlyEnabled}))
	}
	return el
}

// ValidateVolumeDevices validates volumeDevices (block devices need a PVC or ephemeral volume).
//
// Port of k8s.io/kubernetes@v1.37.2 pkg/apis/core/validation/validation.go ValidateVolumeDevices
// (signature differs: it takes the container and the valid volumes).
func ValidateVolumeDevices(c *corev1.Container, vols map[string]corev1.VolumeSource, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	mounts := make(map[string]string, len(c.VolumeMounts))
	for _, m := range c.VolumeMounts {
		mounts[m.Name] = m.MountPath
	}
	paths, names := map[string]bool{}, map[string]bool{}
	for i, d := range c.VolumeDevices {
		p := fldPath.Index(i)
		src, matched := vols[d.Name]
		isPVC := matched && (src.PersistentVolumeClaim != nil || src.Ephemeral != nil)
		if d.Name == "" {
			allErrs = append(allErrs, field.Required(p.Child("name"), ""))
		}
		if names[d.Name] {
			allErrs = append(allErrs, field.Invalid(p.Child("name"), d.Name, "must be unique"))
		}
		if matched && !isPVC {
			allErrs = append(allErrs, field.Invalid(p.Child("name"), d.Name, "can only use volume source type of PersistentVolumeClaim or Ephemeral for block mode"))
		}
		if !matched {
			allErrs = append(allErrs, field.NotFound(p.Child("name"), d.Name))
		}
		if d.DevicePath == "" {
			allErrs = append(allErrs, field.Required(p.Child("devicePath"), ""))
		}
		if paths[d.DevicePath] {
			allErrs = append(allErrs, field.Invalid(p.Child("devicePath"), d.DevicePath, "must be unique"))
		}
		if d.DevicePath != "" && len(validatePathNoBacksteps(d.DevicePath, p)) > 0 {
			allErrs = append(allErrs, field.Invalid(p.Child("devicePath"), d.DevicePath, "can not contain backsteps ('..')"))
		} else {
			paths[d.DevicePath] = true
		}
		if _, ok := mounts[d.Name]; ok {
			allErrs = append(allErrs, field.Invalid(p.Child("name"), d.Name, "must not already exist in volumeMounts"))
		}
		for _, mp := range mounts {
			if mp == d.DevicePath {
				allErrs = append(allErrs, field.Invalid(p.Child("devicePath"), d.DevicePath, "must not already exist as a path in volumeMounts"))
				break
			}
		}
		if d.Name != "" {
			names[d.Name] = true
		}
	}
	return allErrs
}

func validateQuobyteVolumeSource(q *corev1.QuobyteVolumeSource, p *field.Path) field.ErrorList { //nolint:staticcheck
	var el field.ErrorList
	const hp = "must be a host:port pair or multiple pairs separated by commas"
	switch {
	case q.Registry == "":
		el = append(el, field.Required(p.Child("registry"), hp))
	case len(q.Tenant) >= 65:
		el = append(el, field.Required(p.Child("tenant"), "must be a UUID and may not exceed a length of 64 characters"))
	default:
		for _, pair := range strings.Split(q.Registry, ",") {
			if _, _, err := net.SplitHostPort(pair); err != nil {
				el = append(el, field.Invalid(p.Child("registry"), q.Registry, hp))
			}
		}
	}
	return append(el, requireAll(p, "volume", q.Volume)...)
}
