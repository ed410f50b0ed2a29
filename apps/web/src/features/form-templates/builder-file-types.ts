/**
 * The file types staff tick instead of typing MIME patterns, each with the `accept` entries it
 * stands for (extensions and types, as the server's check matches both).
 */
export const fileTypeChoices = {
  pdf: ["application/pdf", ".pdf"],
  images: ["image/*"],
  word: [
    ".doc",
    ".docx",
    "application/msword",
    "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
  ],
  excel: [
    ".xls",
    ".xlsx",
    "application/vnd.ms-excel",
    "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
  ],
  text: ["text/plain", ".txt"],
} as const;
export type FileTypeChoice = keyof typeof fileTypeChoices;

const acceptEntries = (accept: string | undefined) =>
  (accept ?? "")
    .split(",")
    .map((entry) => entry.trim().toLowerCase())
    .filter(Boolean);

/** An `accept` list as ticked choices (a choice counts when any of its entries is listed) and the rest, as typed. */
export function readAccept(accept: string | undefined): { choices: Set<FileTypeChoice>; other: string } {
  const entries = acceptEntries(accept);
  const choices = new Set<FileTypeChoice>();
  const known = new Set<string>();
  for (const [choice, list] of Object.entries(fileTypeChoices) as [FileTypeChoice, readonly string[]][]) {
    if (list.some((entry) => entries.includes(entry))) choices.add(choice);
    for (const entry of list) known.add(entry);
  }
  return { choices, other: entries.filter((entry) => !known.has(entry)).join(",") };
}

/** The `accept` list for ticked choices plus other entries; undefined when nothing is limited. */
export function writeAccept(choices: ReadonlySet<FileTypeChoice>, other: string): string | undefined {
  const entries = [
    ...(Object.keys(fileTypeChoices) as FileTypeChoice[])
      .filter((choice) => choices.has(choice))
      .flatMap((choice) => fileTypeChoices[choice]),
    ...acceptEntries(other),
  ];
  return entries.length > 0 ? [...new Set(entries)].join(",") : undefined;
}
