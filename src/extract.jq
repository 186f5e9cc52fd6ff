# kbidx default extraction program.
#
# Input: one knowledge file (a JSON document). `$path` is the file's path
# relative to the knowledge directory, with `/` separators.
# Output: a stream of section records
#   {reference: "<path>#<section id>", title: "...", hints: ["hint", ...]}
# (`hints` may also be one string; kbidx joins an array with single spaces)
# and, optionally, {warning: "..."} objects that kbidx reports
# (and turns into errors with --strict).
#
# Schemas handled (see README "Extraction"):
#   1. index[] with hints, sections as an object (nabledge-6-small / -large,
#      and kbidx's own knowledge/): one record per index entry, in index
#      order; title = "<file title> / <entry title>" (just one of them when
#      the other is missing or equal); hints = the entry's hints (joined by
#      single spaces in the index). A section with no index entry
#      is reported as a warning.
#   2. sections[] as an array of {id, title, ...} and no index
#      (nabledge-6-fulltext): one record per section; title = "<file title> /
#      <section title>", so that both are searchable; hints = "" (none).
# Anything else (e.g. a JSON file with neither) yields no records.
#
# The program is plain jq: it runs unchanged under `jq --arg path P -c -f`.

def kind: if type == "array" then "an array" elif type == "object" then "an object"
  elif type == "null" then "null" else "a \(type)" end;

# `.` must be a string; `what` names the field in the error message. `what`
# is a filter argument, so the message is only built when there is an error.
def str(what):
  if type == "string" then . else error("\(what) must be a string, found \(kind)") end;

# "<file title> / <section title>", or whichever of the two exists, so that a
# row read on its own says what it is about (a section titled 制約 is not).
def full_title($file; $section):
  if $section == "" or $section == $file then $file
  elif $file == "" then $section
  else "\($file) / \($section)" end;

# Type checks are written inline (not as calls to `str`): in jaq a call of a
# definition with a filter argument costs far more than the test itself.
(.title // "" | str("title")) as $file_title
| if has("index") then
    if (.index | type) != "array" then error("index must be an array, found \(.index | kind)") else . end
    | (.sections // {}) as $sections
    | (.index | length) as $n
    | (range(0; $n) as $i | .index[$i]
        | if (.id | type) != "string" then error("index[\($i)].id must be a string, found \(.id | kind)")
          elif (.title // "" | type) != "string" then error("index[\($i)].title must be a string, found \(.title | kind)")
          elif (.hints | type) != "array" and .hints != null then
            error("index[\($i)].hints must be an array of strings, found \(.hints | kind)")
          else
            { reference: "\($path)#\(.id)",
              title: full_title($file_title; .title // ""),
              hints: (.hints // []) }
          end),
      (if ($sections | type) == "object" then
         [.index[].id] as $ids
         | ((($sections | keys_unsorted) - $ids)[] | {warning: "section \"\(.)\" has no index entry"}),
           (($ids - ($sections | keys_unsorted))[] | {warning: "index entry \"\(.)\" has no section"})
       else empty end)
  elif (.sections | type) == "array" then
    .sections | range(0; length) as $i | .[$i]
    | if (.id | type) != "string" then error("sections[\($i)].id must be a string, found \(.id | kind)")
      elif (.title // "" | type) != "string" then error("sections[\($i)].title must be a string, found \(.title | kind)")
      else
        { reference: "\($path)#\(.id)",
          title: full_title($file_title; .title // ""),
          hints: [] }
      end
  else empty end
