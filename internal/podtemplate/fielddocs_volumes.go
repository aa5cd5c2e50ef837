package podtemplate

import (
	"reflect"

	corev1 "k8s.io/api/core/v1"
)

// Shared phrases of the volume descriptions.
const (
	volDocDefaultMode644 = "File permissions in decimal (`420` = 0644, `256` = 0400), 0 to 511. Defaults to `420`."
	volDocDefaultUser    = "Default owner UID of the files. Alpha, feature-gated."
	volDocItemUser       = "Owner UID of this file, over `default_user`. Alpha, feature-gated."
	volDocItemsKeys      = "Keys to mount and their file paths; by default every key becomes a file."
	volDocOptionalCM     = "Start the pod even if the ConfigMap or a listed key is missing."
	volDocOptionalSecret = "Start the pod even if the Secret or a listed key is missing."
	volDocDownwardItems  = "Files to write, each from a pod field or a container resource."
)

// volumeDocs describe the fields of pod volumes: the volume sources, projected volume sources
// and the ephemeral volume claim template.
var volumeDocs = map[reflect.Type]map[string]string{
	reflect.TypeOf(corev1.Volume{}): {
		"name": "Volume name, a DNS label unique in the pod; used by `volume_mounts`.",
	},
	reflect.TypeOf(corev1.VolumeSource{}): {
		"awsElasticBlockStore":  "Deprecated AWS EBS disk; redirected to the `ebs.csi.aws.com` CSI driver.",
		"azureDisk":             "Deprecated Azure disk; redirected to the `disk.csi.azure.com` CSI driver.",
		"azureFile":             "Deprecated Azure Files; redirected to the `file.csi.azure.com` CSI driver.",
		"cephfs":                "Deprecated CephFS mount; no longer supported.",
		"cinder":                "Deprecated Cinder volume; redirected to the `cinder.csi.openstack.org` driver.",
		"configMap":             "Keys of a ConfigMap as files.",
		"csi":                   "Inline ephemeral volume from a CSI driver that supports it.",
		"downwardAPI":           "Pod metadata and container resources as files.",
		"emptyDir":              "Scratch directory living as long as the pod; `medium = \"Memory\"` makes it RAM-backed (tmpfs).",
		"ephemeral":             "Per-pod PVC created from a template and deleted with the pod.",
		"fc":                    "Fibre Channel disk attached to the node.",
		"flexVolume":            "Deprecated exec-based plugin volume; use a CSI driver.",
		"flocker":               "Deprecated Flocker volume; no longer supported.",
		"gcePersistentDisk":     "Deprecated GCE disk; redirected to the `pd.csi.storage.gke.io` CSI driver.",
		"gitRepo":               "Deprecated git clone; clone into an `empty_dir` from an init container.",
		"glusterfs":             "Deprecated GlusterFS mount; no longer supported.",
		"hostPath":              "File or directory of the node, e.g. a local model cache; exposes the host.",
		"image":                 "OCI image or artifact mounted read-only, e.g. model weights.",
		"iscsi":                 "iSCSI disk attached to the node.",
		"nfs":                   "NFS export, e.g. a shared model store.",
		"persistentVolumeClaim": "Existing PersistentVolumeClaim in the pod's namespace.",
		"photonPersistentDisk":  "Deprecated Photon Controller disk; no longer supported.",
		"portworxVolume":        "Deprecated Portworx volume; redirected to the `pxd.portworx.com` driver.",
		"projected":             "Secrets, ConfigMaps, downward API and tokens merged into one directory.",
		"quobyte":               "Deprecated Quobyte mount; no longer supported.",
		"rbd":                   "Deprecated Ceph RBD disk; no longer supported.",
		"scaleIO":               "Deprecated ScaleIO volume; no longer supported.",
		"secret":                "Keys of a Secret as files.",
		"storageos":             "Deprecated StorageOS volume; no longer supported.",
		"vsphereVolume":         "Deprecated vSphere disk; redirected to the `csi.vsphere.vmware.com` driver.",
	},
	reflect.TypeOf(corev1.ConfigMapVolumeSource{}): {
		"defaultMode": volDocDefaultMode644,
		"defaultUser": volDocDefaultUser,
		"items":       volDocItemsKeys,
		"optional":    volDocOptionalCM,
	},
	reflect.TypeOf(corev1.SecretVolumeSource{}): {
		"defaultMode": volDocDefaultMode644,
		"defaultUser": volDocDefaultUser,
		"items":       volDocItemsKeys,
		"optional":    volDocOptionalSecret,
		"secretName":  "Name of the Secret in the pod's namespace.",
	},
	reflect.TypeOf(corev1.KeyToPath{}): {
		"key":  "Key of the ConfigMap or Secret to expose.",
		"mode": "File permissions in decimal (`256` = 0400). Defaults to the volume's `default_mode`.",
		"path": "Relative file path in the volume; no `..` element.",
		"user": volDocItemUser,
	},
	reflect.TypeOf(corev1.CSIVolumeSource{}): {
		"driver":               "CSI driver name as registered in the cluster.",
		"fsType":               "Filesystem, e.g. `ext4` or `xfs`; unset lets the driver choose.",
		"nodePublishSecretRef": "Secret with credentials the driver needs to mount the volume.",
		"readOnly":             "Mount the volume read-only. Defaults to `false`.",
		"volumeAttributes":     "Driver-specific settings; see the driver's documentation.",
	},
	reflect.TypeOf(corev1.DownwardAPIVolumeSource{}): {
		"defaultMode": volDocDefaultMode644,
		"defaultUser": volDocDefaultUser,
		"items":       volDocDownwardItems,
	},
	reflect.TypeOf(corev1.DownwardAPIVolumeFile{}): {
		"fieldRef":         "Pod field: `metadata.name`, `metadata.namespace`, `metadata.uid`, `metadata.labels` or `metadata.annotations`.",
		"mode":             "File permissions in decimal (`256` = 0400). Defaults to the volume's `default_mode`.",
		"path":             "Relative file path in the volume; no `..` element.",
		"resourceFieldRef": "Container resource to write, e.g. `limits.memory`; needs `container_name`.",
		"user":             volDocItemUser,
	},
	reflect.TypeOf(corev1.EmptyDirVolumeSource{}): {
		"medium":    "`Memory` for RAM-backed tmpfs (counts as memory use), e.g. `/dev/shm`; `HugePages` or `HugePages-<size>` (needs hugepages requests); unset for node disk.",
		"mode":      "Directory permissions in decimal (`511` = 0777). Defaults to 0777. Alpha, feature-gated.",
		"sizeLimit": "Size cap as a quantity, e.g. `\"16Gi\"`; with `Memory`, pod memory limits also cap it.",
	},
	reflect.TypeOf(corev1.EphemeralVolumeSource{}): {
		"volumeClaimTemplate": "PVC to create for the pod, named `<pod>-<volume>`.",
	},
	reflect.TypeOf(corev1.PersistentVolumeClaimTemplate{}): {
		"metadata": "Labels and annotations for the PVC; nothing else allowed.",
		"spec":     "PVC spec: access modes, storage class, size.",
	},
	reflect.TypeOf(corev1.HostPathVolumeSource{}): {
		"path": "Path on the node; symlinks are followed.",
		"type": "`Directory`, `DirectoryOrCreate`, `File`, `FileOrCreate`, `Socket`, `CharDevice`, `BlockDevice` or `\"\"` (default: no check).",
	},
	reflect.TypeOf(corev1.ImageVolumeSource{}): {
		"pullPolicy": "`Always`, `IfNotPresent` or `Never`. Defaults to `Always` for `:latest` or no tag, else `IfNotPresent`.",
		"reference":  "Image or artifact to mount, like a container `image`; uses the pod's pull secrets.",
	},
	reflect.TypeOf(corev1.NFSVolumeSource{}): {
		"path":     "Absolute path exported by the server.",
		"readOnly": "Mount the export read-only. Defaults to `false`.",
		"server":   "Hostname or IP address of the NFS server.",
	},
	reflect.TypeOf(corev1.PersistentVolumeClaimVolumeSource{}): {
		"claimName": "Name of the PersistentVolumeClaim in the pod's namespace.",
		"readOnly":  "Force read-only mounts. Defaults to `false`.",
	},
	reflect.TypeOf(corev1.ProjectedVolumeSource{}): {
		"defaultMode": volDocDefaultMode644,
		"defaultUser": volDocDefaultUser,
		"sources":     "Sources to merge; each entry sets exactly one source.",
	},
	reflect.TypeOf(corev1.VolumeProjection{}): {
		"clusterTrustBundle":  "CA certificates of ClusterTrustBundles as one auto-updated PEM file.",
		"configMap":           "ConfigMap keys to include.",
		"downwardAPI":         "Pod metadata and container resources to include.",
		"podCertificate":      "Key and certificate chain from a signer, rotated by the kubelet; the pod waits for them.",
		"secret":              "Secret keys to include.",
		"serviceAccountToken": "Auto-rotated service account token, e.g. for a custom audience.",
	},
	reflect.TypeOf(corev1.ClusterTrustBundleProjection{}): {
		"labelSelector": "Bundle label filter, only with `signer_name`; unset matches none, empty all.",
		"name":          "Name of one ClusterTrustBundle; exclusive with `signer_name`.",
		"optional":      "Start the pod even if no matching bundle exists.",
		"path":          "Relative path of the PEM file.",
		"signerName":    "Use all bundles of this signer, merged; exclusive with `name`.",
		"user":          volDocItemUser,
	},
	reflect.TypeOf(corev1.ConfigMapProjection{}): {
		"items":    volDocItemsKeys,
		"optional": volDocOptionalCM,
	},
	reflect.TypeOf(corev1.SecretProjection{}): {
		"items":    volDocItemsKeys,
		"optional": volDocOptionalSecret,
	},
	reflect.TypeOf(corev1.DownwardAPIProjection{}): {
		"items": volDocDownwardItems,
	},
	reflect.TypeOf(corev1.PodCertificateProjection{}): {
		"certificateChainPath": "Relative path for the chain alone; prefer `credential_bundle_path`.",
		"credentialBundlePath": "Relative path for one PEM file with key and chain; read atomically, so preferred.",
		"keyPath":              "Relative path for the key alone; prefer `credential_bundle_path`.",
		"keyType":              "Key pair type: `RSA3072`, `RSA4096`, `ECDSAP256`, `ECDSAP384`, `ECDSAP521` or `ED25519`.",
		"maxExpirationSeconds": "Max certificate lifetime, 3600 to 7862400 (86400 for `kubernetes.io` signers). Defaults to `86400`.",
		"signerName":           "Signer to request from, e.g. `example.com/my-signer`.",
		"user":                 volDocItemUser,
		"userAnnotations":      "Extra information for the signer; keys must be domain-prefixed.",
	},
	reflect.TypeOf(corev1.ServiceAccountTokenProjection{}): {
		"audience":          "Token audience. Defaults to the API server's identifier.",
		"expirationSeconds": "Token lifetime in seconds, at least `600`; rotated at 80% or after 24h. Defaults to `3600`.",
		"path":              "Relative path of the token file.",
		"user":              volDocItemUser,
	},
}
