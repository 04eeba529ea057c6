package files

import (
	"archive/zip"
	"fmt"
	"os"
	"slices"
	"strings"
)

// zipOwners are the user and group the unpacked files should belong to
// (the owner and group arguments, else the user running the module).
type zipOwners struct {
	runUID, runGID     int
	runOwner, runGroup string
	futUID, futGID     int
	futOwner, futGroup string
}

func (h *zipHandler) owners() zipOwners {
	o := zipOwners{runUID: os.Getuid(), runGID: os.Getgid()}
	o.runOwner = nameOr(userName(o.runUID), o.runUID)
	o.runGroup = nameOr(groupName(o.runGID), o.runGID)
	o.futUID, o.futOwner, o.futGID, o.futGroup = o.runUID, o.runOwner, o.runGID, o.runGroup
	if own := h.u.fa.owner; own != nil && *own != "" {
		if id, ok := lookupUID(*own); ok && userName(id) != "" {
			o.futUID, o.futOwner = id, userName(id)
		}
	}
	if grp := h.u.fa.group; grp != nil && *grp != "" {
		if id, ok := lookupGID(*grp); ok && groupName(id) != "" {
			o.futGID, o.futGroup = id, groupName(id)
		}
	}
	return o
}

// isUnarchived compares every selected member with dest as the zip
// handler does with zipinfo's listing: type, mtime (or keep_newer), size,
// CRC-32, mode and ownership, itemizing each difference.
func (h *zipHandler) isUnarchived() (unarchivedState, error) {
	own := h.owners()
	var diff strings.Builder
	unarchived := !h.includesMatchNothing()
	for _, f := range h.selected() {
		item, err := h.compareMember(f, own)
		if err != nil {
			return unarchivedState{}, err
		}
		if item != "" {
			h.changed = append(h.changed, f.Name)
			diff.WriteString(item + " " + f.Name + "\n")
		}
	}
	if len(h.changed) > 0 {
		unarchived = false
	}
	return unarchivedState{unarchived: unarchived, diff: diff.String()}, nil
}

// compareMember returns the itemized change of one member ("" when it is
// unchanged).
func (h *zipHandler) compareMember(f *zip.File, own zipOwners) (string, error) {
	m := describeZipMember(f)
	ftype := map[byte]byte{'d': 'd', 'l': 'L', '-': 'f', '?': 'f'}[m.ztype]
	path := h.u.absDest + "/" + f.Name
	st, err := os.Lstat(path)
	if err != nil {
		return ">" + string(ftype) + "++++++.??", nil
	}
	switch {
	case ftype == 'd' && !st.IsDir(),
		ftype == 'f' && !st.Mode().IsRegular(),
		ftype == 'L' && st.Mode()&os.ModeSymlink == 0:
		return "c" + string(ftype) + "++++++.??", nil
	}
	itemized := []byte("." + string(ftype) + ".......??")
	change := false
	if st.Mode().IsRegular() {
		mtime := st.ModTime().UnixNano()
		switch {
		case h.u.p.Bool("keep_newer") && m.mtime*1e9 > mtime:
			change, itemized[4] = true, 't'
		case h.u.p.Bool("keep_newer") && m.mtime*1e9 < mtime:
			return "", nil
		case !h.u.p.Bool("keep_newer") && m.mtime*1e9 != mtime:
			change, itemized[4] = true, 't'
		}
		if uint64(st.Size()) != f.UncompressedSize64 {
			change, itemized[3] = true, 's'
		}
		if sum, err := crc32File(path); err != nil || sum != f.CRC32 {
			change, itemized[2] = true, 'c'
		}
	}
	if ftype != 'L' {
		want := m.mode
		if h.u.fa.mode != nil {
			mode, err := resolveMode(h.u.fa.mode, st, f.Name)
			if err != nil {
				return "", err
			}
			want = mode
		}
		if want != permOf(st) {
			change, itemized[5] = true, 'p'
		}
	}
	ownerChange, err := h.compareOwnership(f.Name, st, own)
	if err != nil {
		return "", err
	}
	if ownerChange != 0 {
		change, itemized[6] = true, ownerChange
	}
	if !change {
		return "", nil
	}
	return string(itemized), nil
}

// compareOwnership returns 'o' or 'g' when the member's owner or group
// is not the expected one; a user other than root cannot give files away.
func (h *zipHandler) compareOwnership(name string, st os.FileInfo, own zipOwners) (byte, error) {
	if own.runUID != 0 && (own.futOwner != own.runOwner || own.futUID != own.runUID) {
		return 0, fmt.Errorf("Cannot change ownership of %s to %s, as user %s", name, own.futOwner, own.runOwner)
	}
	groups, _ := os.Getgroups()
	if own.runUID != 0 && (own.futGroup != own.runGroup || own.futGID != own.runGID) && !slices.Contains(groups, own.futGID) {
		return 0, fmt.Errorf("Cannot change group ownership of %s to %s, as user %s", name, own.futGroup, own.runOwner)
	}
	uid, gid := statOwner(st)
	var change byte
	if owner := userName(uid); (owner != "" && owner != own.futOwner) || (owner == "" && uid != own.futUID) {
		change = 'o'
	}
	if group := groupName(gid); (group != "" && group != own.futGroup) || (group == "" && gid != own.futGID) {
		change = 'g'
	}
	return change, nil
}
