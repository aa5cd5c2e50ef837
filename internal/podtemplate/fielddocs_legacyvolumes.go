package podtemplate

import (
	"reflect"

	corev1 "k8s.io/api/core/v1"
)

// Phrases shared by the in-tree volume plugins.
const (
	legacyFSType       = "Filesystem type, e.g. `ext4`, `xfs`, `ntfs`; `ext4` if unset."
	legacyFSTypeNoDflt = "Filesystem type, e.g. `ext4`, `xfs`, `ntfs`."
	legacyReadOnly     = "Forces every mount of this volume to be read-only."
	legacyPartition    = "Partition to mount (`1` for `/dev/sda1`); omit for the whole disk."
)

// legacyVolumeDocs describe the fields of the in-tree volume plugins (mostly deprecated or removed).
//
//nolint:staticcheck // the deprecated volume sources are still part of the API
var legacyVolumeDocs = map[reflect.Type]map[string]string{
	reflect.TypeOf(corev1.AWSElasticBlockStoreVolumeSource{}): {
		"fsType":    legacyFSType,
		"partition": legacyPartition,
		"readOnly":  legacyReadOnly,
		"volumeID":  "ID of the existing EBS volume to attach.",
	},
	reflect.TypeOf(corev1.AzureDiskVolumeSource{}): {
		"cachingMode": "Host caching: `None`, `ReadOnly` or `ReadWrite`. Defaults to `ReadWrite`.",
		"diskName":    "Name of the Azure data disk.",
		"diskURI":     "Disk URI: a `/subscriptions/...` ID for `Managed`, else an `https://` VHD URL.",
		"fsType":      legacyFSTypeNoDflt,
		"kind":        "Disk kind: `Shared`, `Dedicated` or `Managed`. Defaults to `Shared`.",
		"readOnly":    legacyReadOnly,
	},
	reflect.TypeOf(corev1.AzureFileVolumeSource{}): {
		"readOnly":   legacyReadOnly,
		"secretName": "Secret holding the storage account name and key.",
		"shareName":  "Name of the Azure file share.",
	},
	reflect.TypeOf(corev1.CephFSVolumeSource{}): {
		"monitors":   "Ceph monitor addresses.",
		"path":       "Subtree to mount as the root; `/` if unset.",
		"readOnly":   legacyReadOnly,
		"secretFile": "Path to the user's keyring; `/etc/ceph/user.secret` if unset.",
		"secretRef":  "Secret with the Ceph user's key.",
		"user":       "RADOS user name; `admin` if unset.",
	},
	reflect.TypeOf(corev1.CinderVolumeSource{}): {
		"fsType":    legacyFSType,
		"readOnly":  legacyReadOnly,
		"secretRef": "Secret with the OpenStack connection parameters.",
		"volumeID":  "ID of the Cinder volume.",
	},
	reflect.TypeOf(corev1.FCVolumeSource{}): {
		"fsType":     legacyFSType,
		"lun":        "Target LUN, 0-255; required with `target_wwns`.",
		"readOnly":   legacyReadOnly,
		"targetWWNs": "Target world wide names; set these and `lun`, or `wwids`.",
		"wwids":      "Volume world wide IDs; use instead of `target_wwns`.",
	},
	reflect.TypeOf(corev1.FlexVolumeSource{}): {
		"driver":    "Name of the FlexVolume driver.",
		"fsType":    "Filesystem type, e.g. `ext4`; the driver decides if unset.",
		"options":   "Extra driver options; `kubernetes.io`/`k8s.io` keys are reserved.",
		"readOnly":  legacyReadOnly,
		"secretRef": "Secret whose entries are all passed to the driver.",
	},
	reflect.TypeOf(corev1.FlockerVolumeSource{}): {
		"datasetName": "Flocker dataset name; deprecated, prefer `dataset_uuid`.",
		"datasetUUID": "UUID of the Flocker dataset; set this or `dataset_name`.",
	},
	reflect.TypeOf(corev1.GCEPersistentDiskVolumeSource{}): {
		"fsType":    legacyFSType,
		"partition": legacyPartition,
		"pdName":    "Name of the GCE persistent disk.",
		"readOnly":  legacyReadOnly,
	},
	reflect.TypeOf(corev1.GitRepoVolumeSource{}): {
		"directory":  "Directory to clone into, no `..`; `.` clones into the volume root.",
		"repository": "URL of the Git repository to clone.",
		"revision":   "Commit hash to check out.",
	},
	reflect.TypeOf(corev1.GlusterfsVolumeSource{}): {
		"endpoints": "Name of the Endpoints object listing the Gluster servers.",
		"path":      "Path of the Gluster volume.",
		"readOnly":  "Mounts the Gluster volume read-only.",
	},
	reflect.TypeOf(corev1.ISCSIVolumeSource{}): {
		"chapAuthDiscovery": "Use CHAP for iSCSI discovery; needs `secret_ref`.",
		"chapAuthSession":   "Use CHAP for iSCSI sessions; needs `secret_ref`.",
		"fsType":            legacyFSType,
		"initiatorName":     "Custom initiator name, in `iqn`, `eui` or `naa` format.",
		"iqn":               "Target name, in `iqn`, `eui` or `naa` format.",
		"iscsiInterface":    "iSCSI transport interface name.",
		"lun":               "Target LUN number, 0-255.",
		"portals":           "Additional target portals, each `ip` or `ip:port`.",
		"readOnly":          legacyReadOnly,
		"secretRef":         "Secret with the CHAP credentials.",
		"targetPortal":      "Target portal, `ip` or `ip:port`.",
	},
	reflect.TypeOf(corev1.PhotonPersistentDiskVolumeSource{}): {
		"fsType": legacyFSType,
		"pdID":   "ID of the Photon Controller persistent disk.",
	},
	reflect.TypeOf(corev1.PortworxVolumeSource{}): {
		"fsType":   "Filesystem type, e.g. `ext4` or `xfs`; `ext4` if unset.",
		"readOnly": legacyReadOnly,
		"volumeID": "ID of the Portworx volume.",
	},
	reflect.TypeOf(corev1.QuobyteVolumeSource{}): {
		"group":    "Group to map volume access to; none if unset.",
		"readOnly": "Mounts the Quobyte volume read-only.",
		"registry": "Registry service(s) as `host:port`, comma-separated.",
		"tenant":   "Owning tenant; set by the plugin for provisioned volumes.",
		"user":     "User to map volume access to; the service account user if unset.",
		"volume":   "Name of an existing Quobyte volume.",
	},
	reflect.TypeOf(corev1.RBDVolumeSource{}): {
		"fsType":    legacyFSType,
		"image":     "Name of the RADOS image.",
		"keyring":   "Path to the keyring for `user`.",
		"monitors":  "Ceph monitor addresses.",
		"pool":      "RADOS pool name.",
		"readOnly":  legacyReadOnly,
		"secretRef": "Secret with the key for `user`; overrides `keyring`.",
		"user":      "RADOS user name.",
	},
	reflect.TypeOf(corev1.ScaleIOVolumeSource{}): {
		"fsType":           legacyFSTypeNoDflt,
		"gateway":          "Host address of the ScaleIO API gateway.",
		"protectionDomain": "ScaleIO protection domain of the storage.",
		"readOnly":         legacyReadOnly,
		"secretRef":        "Secret with the ScaleIO credentials; login fails without it.",
		"sslEnabled":       "Use SSL to reach the gateway. Defaults to `false`.",
		"storageMode":      "`ThickProvisioned` or `ThinProvisioned`.",
		"storagePool":      "ScaleIO storage pool within the protection domain.",
		"system":           "Name of the ScaleIO storage system.",
		"volumeName":       "Name of an existing ScaleIO volume.",
	},
	reflect.TypeOf(corev1.StorageOSVolumeSource{}): {
		"fsType":          legacyFSType,
		"readOnly":        legacyReadOnly,
		"secretRef":       "Secret with StorageOS API credentials; defaults tried if unset.",
		"volumeName":      "StorageOS volume name (a DNS label), unique per namespace.",
		"volumeNamespace": "StorageOS namespace, created if missing; the pod's if unset.",
	},
	reflect.TypeOf(corev1.VsphereVirtualDiskVolumeSource{}): {
		"fsType":            legacyFSType,
		"storagePolicyID":   "SPBM profile ID for `storage_policy_name`.",
		"storagePolicyName": "Storage Policy Based Management (SPBM) profile name.",
		"volumePath":        "Path of the VMDK, e.g. `[datastore1] volumes/disk.vmdk`.",
	},
}
