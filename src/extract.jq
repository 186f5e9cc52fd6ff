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
# Schemas handled (see docs/knowledge.md, "Extraction"):
#   1. index[] with hints, sections as an object (nabledge-6-small / -large,
#      and kbidx's own knowledge/): one record per index entry, in index
#      order; title = "<file title> / <entry title>" (just one of them when
#      the other is missing or equal); hints = the entry's hints (joined by
#      single spaces in the index). A section with no index entry follows
#      them, titled with the file title and without hints, and is reported
#      as a warning.
#   2. sections[] as an array of {id, title, ...} and no index
#      (nabledge-6-fulltext): one record per section; title = "<file title> /
#      <section title>", so that both are searchable; hints = "" (none).
#   Both: a file with page text (a top-level `content` that is not empty,
#      such as nabledge-6-fulltext's page introductions) first gets the
#      record {reference: "<path>#_page", title: <file title>, hints: []}:
#      kbidx reads the page text as the text of section `_page`
#      (docs/knowledge.md, "Page text"). A file whose own sections have an
#      id `_page` keeps that section instead. Other top-level fields are not
#      page text: kbidx names them in build's left_out.
# Anything else (e.g. a JSON file with neither) yields no records.
#
# The program is plain jq: it runs unchanged under `jq --arg path P -c -f`.

def kind: if type == "array" then "an array" elif type == "object" then "an object"
  elif type == "null" then "null" else "a \(type)" end;

# "<file title> / <section title>", or whichever of the two exists, so that a
# row read on its own says what it is about (a section titled 制約 is not).
def full_title($file; $section):
  if $section == "" or $section == $file then $file
  elif $file == "" then $section
  else "\($file) / \($section)" end;

# Whether every element of the array `.` is a string (an array): one native
# sort and two comparisons, as jq orders null < booleans < numbers < strings
# < arrays < objects.
def all_strings: length == 0 or (sort | .[0] >= "" and .[-1] < []);
def all_arrays: length == 0 or (sort | .[0] >= [] and .[-1] < {});

# Whether the file has page text: a top-level `content` that is not empty.
# Other top-level fields are not page text (kbidx names them in build's
# left_out).
def has_page: .content | . != null and . != "" and . != [] and . != {};

# Speed (kbidx runs this with jaq, where every step has a fixed cost): type
# tests are comparisons (`type` is a jq definition in jaq), each file's
# entries are checked all at once, and only a file that fails the check goes
# through the per-entry path, which emits the same records up to the first
# bad entry and then stops with an error naming it. Both paths give the same
# records.
(.title // "" | if . >= "" and . < [] then . else error("title must be a string, found \(kind)") end) as $file_title
| ($path + "#") as $prefix
| (if $file_title == "" then null else $file_title + " / " end) as $title_prefix
| (if type == "object" and has_page
      and ([.sections | if type == "object" then keys[] elif type == "array" then .[].id? else empty end]
           | index(["_page"]) | not)
   then {reference: ($prefix + "_page"), title: $file_title, hints: []} else empty end),
  (if has("index") then
    .index as $index
    | if $index >= [] and $index < {} then . else error("index must be an array, found \($index | kind)") end
    | (.sections // {}) as $sections
    | [$index[].id?] as $ids
    | (if ($ids | length) == ($index | length)
          and ([$ids[], ($index[].title // empty)] | all_strings)
          and ([$index[].hints] - [null] | all_arrays) then
         $index[]
         | . as {id: $id, title: $t, hints: $h}
         | { reference: ($prefix + $id),
             title: (($t // "") as $s | if $s == "" or $s == $file_title then $file_title
                     elif $title_prefix then $title_prefix + $s else $s end),
             hints: ($h // []) }
       else
         range(0; $index | length) as $i | $index[$i]
         | if (.id | type) != "string" then error("index[\($i)].id must be a string, found \(.id | kind)")
           elif (.title // "" | type) != "string" then error("index[\($i)].title must be a string, found \(.title | kind)")
           elif (.hints | type) != "array" and .hints != null then
             error("index[\($i)].hints must be an array of strings, found \(.hints | kind)")
           else
             { reference: "\($path)#\(.id)",
               title: full_title($file_title; .title // ""),
               hints: (.hints // []) }
           end
       end),
      (if $sections >= {} then
         ($sections | keys_unsorted) as $keys
         | if $keys == $ids then empty else
           (($keys - $ids)[] | {reference: ($prefix + .), title: $file_title, hints: []}),
           (($keys - $ids)[] | {warning: "section \"\(.)\" has no index entry"}),
           (($ids - $keys)[] | {warning: "index entry \"\(.)\" has no section"}) end
       else empty end)
  elif .sections | . >= [] and . < {} then
    .sections as $list
    | [$list[].id?] as $ids
    | if ($ids | length) == ($list | length)
         and ([$ids[], ($list[].title // empty)] | all_strings) then
        $list[]
        | . as {id: $id, title: $t}
        | { reference: ($prefix + $id),
            title: (($t // "") as $s | if $s == "" or $s == $file_title then $file_title
                    elif $title_prefix then $title_prefix + $s else $s end),
            hints: [] }
      else
        range(0; $list | length) as $i | $list[$i]
        | if (.id | type) != "string" then error("sections[\($i)].id must be a string, found \(.id | kind)")
          elif (.title // "" | type) != "string" then error("sections[\($i)].title must be a string, found \(.title | kind)")
          else
            { reference: "\($path)#\(.id)",
              title: full_title($file_title; .title // ""),
              hints: [] }
          end
      end
  else empty end)
