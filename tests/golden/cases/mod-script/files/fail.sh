echo failing >&2
exit 3
