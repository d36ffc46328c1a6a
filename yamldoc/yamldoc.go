package yamldoc

import "bytes"

// Split returns the documents of data in order. A document starts after a
// line that begins with "---" followed by the end of the line or by blank
// space; whatever follows the marker on that line (a comment, a tag, a
// scalar) belongs to the document it starts, as in YAML. Documents holding
// only blank and comment lines are left out, so Split(data) is empty for a
// stream with nothing to decode. The documents share data's memory.
//
// k8s.io/apimachinery's YAMLReader rejects content after the marker and
// copies every document; the readers here accept what they always
// accepted, and the manifest scan splits 10,000 documents without copies.
func Split(data []byte) [][]byte {
	var docs [][]byte
	start := 0
	for i := 0; i < len(data); {
		next := len(data)
		if n := bytes.IndexByte(data[i:], '\n'); n >= 0 {
			next = i + n + 1
		}
		if marker(data[i:next]) {
			docs = appendContent(docs, data[start:i])
			start = i + 3
		}
		i = next
	}
	return appendContent(docs, data[start:])
}

// marker reports whether line starts a document: "---" then the end of the
// line or a space or tab.
func marker(line []byte) bool {
	if !bytes.HasPrefix(line, []byte("---")) {
		return false
	}
	if len(line) == 3 {
		return true
	}
	switch line[3] {
	case ' ', '\t', '\r', '\n':
		return true
	}
	return false
}

// appendContent appends doc when a line of it is neither blank nor a
// comment.
func appendContent(docs [][]byte, doc []byte) [][]byte {
	for rest := doc; len(rest) > 0; {
		line := rest
		if n := bytes.IndexByte(rest, '\n'); n >= 0 {
			line, rest = rest[:n], rest[n+1:]
		} else {
			rest = nil
		}
		if t := bytes.TrimSpace(line); len(t) > 0 && t[0] != '#' {
			return append(docs, doc)
		}
	}
	return docs
}
