package image

import (
	"fmt"
	"io/fs"
	"os"
	"time"
)

// The ansible-operator base image: a drop-in for
// quay.io/operator-framework/ansible-operator that operator projects build
// FROM, copying their watches.yaml, roles/ and playbooks/ into
// SDKHome. container/Dockerfile.ansible-operator states the same values;
// TestAnsibleOperatorDockerfileMatchesPacker keeps them in step.
const (
	// SDKHome is HOME and the working directory, as in ansible-operator's
	// image (/opt/ansible).
	SDKHome = "/opt/ansible"
	// SDKUID is the user ansible-operator's image runs as (group 0, so
	// that OpenShift's arbitrary UIDs can write HOME too).
	SDKUID = 1001
	// SDKDefaultName is the base image's reference when none is given.
	SDKDefaultName = "ghcr.io/cfzt/cfzt-ansible-operator:dev"
)

// SDKEntrypoint runs the operator on ./watches.yaml, as ansible-operator's
// image does.
var SDKEntrypoint = []string{BinaryPath, "operator", "run", "--watches-file=./watches.yaml"}

// SDKEnv is the base image's environment.
var SDKEnv = []string{
	"PATH=/usr/local/bin:/usr/bin:/bin",
	"HOME=" + SDKHome,
	"USER_NAME=ansible",
	"USER_UID=1001",
	"ANSIBLE_ROLES_PATH=" + SDKHome + "/roles",
}

// sdkPasswd names the ansible user as ansible-operator's image does.
const (
	sdkPasswd = "root:x:0:0:root:/root:/sbin/nologin\nansible:x:1001:0:ansible user:/opt/ansible:/sbin/nologin\n"
	sdkGroup  = "root:x:0:\n"
)

// SDKOptions describe the base image to pack.
type SDKOptions struct {
	// Binary is a static cfzt-runner (see BuildBinary).
	Binary string
	// CABundle is a PEM trust store; empty picks the build machine's.
	CABundle string
	// Name is the image reference; empty means SDKDefaultName.
	Name, Version string
	// Created is the image's creation time (zero: the Unix epoch).
	Created time.Time
	// Arch is the CPU architecture (empty: the build machine's); Binary
	// must be built for it.
	Arch string
}

// AnsibleOperator returns the base image: system files, cfzt-runner, an
// empty HOME owned by the ansible user and a sticky /tmp, in one layer.
func AnsibleOperator(opts SDKOptions) (*Image, error) {
	bin, err := os.ReadFile(opts.Binary)
	if err != nil {
		return nil, fmt.Errorf("image: %w", err)
	}
	arch, err := binaryArch(opts.Binary, bin, opts.Arch)
	if err != nil {
		return nil, err
	}
	ca, err := readCABundle(opts.CABundle)
	if err != nil {
		return nil, err
	}
	name, created, version := identity(opts.Name, SDKDefaultName, opts.Created, opts.Version)
	return &Image{
		Name: name, Platform: Platform{Architecture: arch, OS: "linux"}, Created: created,
		Config: RuntimeConfig{
			User: fmt.Sprint(SDKUID), Env: append([]string(nil), SDKEnv...), Entrypoint: append([]string(nil), SDKEntrypoint...),
			WorkingDir: SDKHome,
			Labels: map[string]string{
				"org.opencontainers.image.title":       "cfzt-ansible-operator",
				"org.opencontainers.image.description": "Base image for operator-sdk Ansible operators, run natively by cfzt-runner",
				"org.opencontainers.image.version":     version,
			},
		},
		Layers: []Layer{{
			CreatedBy: "cfzt image packer: passwd, group, CA certificates, /tmp, " + SDKHome + ", cfzt-runner",
			Entries: []Entry{
				{Path: "/etc/passwd", Mode: 0o644, Data: []byte(sdkPasswd)},
				{Path: "/etc/group", Mode: 0o644, Data: []byte(sdkGroup)},
				{Path: CABundlePath, Mode: 0o644, Data: ca},
				{Path: "/tmp", Mode: fs.ModeDir | fs.ModeSticky | 0o777},
				{Path: SDKHome, Mode: fs.ModeDir | 0o775, UID: SDKUID, GID: 0},
				{Path: SDKHome + "/.ansible/tmp", Mode: fs.ModeDir | 0o775, UID: SDKUID, GID: 0},
				{Path: BinaryPath, Mode: 0o755, Data: bin},
			},
		}},
	}, nil
}
