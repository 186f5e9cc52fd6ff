# kbidx default extraction program.
#
# Input: one knowledge file (a JSON document). `$path` is the file's path
# relative to the knowledge directory, with `/` separators.
# Output: a stream of section records
#   {reference: "<path>#<section id>", title: "...", hints: "hint hint ..."}
# and, optionally, {warning: "..."} objects that kbidx reports
# (and turns into errors with --strict).
#
# Schemas handled (see README "Extraction"):
#   1. index[] with hints, sections as an object (nabledge-6-small / -large,
#      and kbidx's own knowledge/): one record per index entry, in index
#      order; title = "<file title> / <entry title>" (just one of them when
#      the other is missing or equal); hints = the entry's hints joined by
#      single spaces. A section with no index entry
#      is reported as a warning.
#   2. sections[] as an array of {id, title, ...} and no index
#      (nabledge-6-fulltext): one record per section; title = "<file title> /
#      <section title>", so that both are searchable; hints = "" (none).
# Anything else (e.g. a JSON file with neither) yields no records.
#
# The program is plain jq: it runs unchanged under `jq --arg path P -c -f`.

def kind: if type == "array" then "an array" elif type == "object" then "an object"
  elif type == "null" then "null" else "a \(type)" end;

# `.` must be a string; `$what` names the field in the error message.
def str($what):
  if type == "string" then . else error("\($what) must be a string, found \(kind)") end;

# "<file title> / <section title>", or whichever of the two exists, so that a
# row read on its own says what it is about (a section titled 制約 is not).
def full_title($file; $section):
  if $section == "" or $section == $file then $file
  elif $file == "" then $section
  else "\($file) / \($section)" end;

def hint_list($what):
  if type == "array" then
    [.[] | str("\($what)[]")] | join(" ")
  elif type == "null" then ""
  else error("\($what) must be an array of strings, found \(kind)") end;

(.title // "" | str("title")) as $file_title
| if has("index") then
    if (.index | type) != "array" then error("index must be an array, found \(.index | kind)") else . end
    | (.sections // {}) as $sections
    | ([.index[] | .id] ) as $ids
    | (.index | to_entries[] | .key as $i | .value
        | (.id | str("index[\($i)].id")) as $id
        | { reference: "\($path)#\($id)",
            title: full_title($file_title; .title // "" | str("index[\($i)].title")),
            hints: (.hints | hint_list("index[\($i)].hints")) }),
      (if ($sections | type) == "object" then
         $sections | keys_unsorted[] | select(. as $k | $ids | index([$k]) | not)
         | {warning: "section \"\(.)\" has no index entry"}
       else empty end),
      (.index[] | .id as $id
        | select(($sections | type) == "object" and ($sections | has($id) | not))
        | {warning: "index entry \"\($id)\" has no section"})
  elif (.sections | type) == "array" then
    .sections | to_entries[] | .key as $i | .value
    | { reference: "\($path)#\(.id | str("sections[\($i)].id"))",
        title: full_title($file_title; .title // "" | str("sections[\($i)].title")),
        hints: "" }
  else empty end
