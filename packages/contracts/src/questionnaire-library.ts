/**
 * Scored questionnaires a clinic can copy into its own templates (the console's "From the
 * library" action creates an ordinary, editable template from one of these). Wording and
 * scoring as published; licence terms in docs/questionnaires.md and in each description.
 */
import type { TemplateSchema } from "./template-schema";

export interface LibraryQuestionnaire {
  /** Stable id of the library entry (not a template identifier). */
  id: string;
  language: "en" | "de";
  title: string;
  description: string;
  schema: TemplateSchema;
}

interface Wording {
  intro: string;
  items: string[];
  answers: [string, string, string, string];
  scoreLabel: string;
  /** The LOINC code of the total (FHIR: the score item's code and its Observation's). */
  scoreCode: { system: string; code: string; display: string };
  bands: { min: number; max: number; label: string }[];
  /** PHQ-9's unscored tenth question, with its own four answers. */
  difficulty?: { label: string; answers: [string, string, string, string] };
  footer: string;
}

const PHQ_FOOTER_EN =
  "Developed by Drs. Robert L. Spitzer, Janet B.W. Williams, Kurt Kroenke and colleagues, with an educational grant from Pfizer Inc. No permission required to reproduce, translate, display or distribute.";
const PHQ_FOOTER_DE =
  "Deutsche Version (PHQ-D): B. Löwe, R. L. Spitzer, S. Zipfel, W. Herzog. Entwickelt von Drs. Robert L. Spitzer, Janet B.W. Williams, Kurt Kroenke und Kollegen mit einem Ausbildungszuschuss von Pfizer Inc. Für Vervielfältigung, Übersetzung, Darstellung und Verbreitung ist keine Genehmigung erforderlich.";

const LOINC = "http://loinc.org";
const PHQ9_TOTAL = {
  system: LOINC,
  code: "44261-6",
  display: "Patient Health Questionnaire 9 item (PHQ-9) total score [Reported]",
};
const GAD7_TOTAL = {
  system: LOINC,
  code: "70274-6",
  display: "Generalized anxiety disorder 7 item (GAD-7) total score [Reported.PHQ]",
};

const ANSWERS_EN: Wording["answers"] = ["Not at all", "Several days", "More than half the days", "Nearly every day"];
const ANSWERS_DE: Wording["answers"] = [
  "Überhaupt nicht",
  "An einzelnen Tagen",
  "An mehr als der Hälfte der Tage",
  "Beinahe jeden Tag",
];

const PHQ9_EN: Wording = {
  intro: "Over the last 2 weeks, how often have you been bothered by any of the following problems?",
  items: [
    "Little interest or pleasure in doing things",
    "Feeling down, depressed, or hopeless",
    "Trouble falling or staying asleep, or sleeping too much",
    "Feeling tired or having little energy",
    "Poor appetite or overeating",
    "Feeling bad about yourself — or that you are a failure or have let yourself or your family down",
    "Trouble concentrating on things, such as reading the newspaper or watching television",
    "Moving or speaking so slowly that other people could have noticed? Or the opposite — being so fidgety or restless that you have been moving around a lot more than usual",
    "Thoughts that you would be better off dead or of hurting yourself in some way",
  ],
  answers: ANSWERS_EN,
  scoreLabel: "PHQ-9 total score",
  scoreCode: PHQ9_TOTAL,
  bands: [
    { min: 0, max: 4, label: "Minimal" },
    { min: 5, max: 9, label: "Mild" },
    { min: 10, max: 14, label: "Moderate" },
    { min: 15, max: 19, label: "Moderately severe" },
    { min: 20, max: 27, label: "Severe" },
  ],
  difficulty: {
    label:
      "If you checked off any problems, how difficult have these problems made it for you to do your work, take care of things at home, or get along with other people?",
    answers: ["Not difficult at all", "Somewhat difficult", "Very difficult", "Extremely difficult"],
  },
  footer: PHQ_FOOTER_EN,
};

const PHQ9_DE: Wording = {
  intro: "Wie oft fühlten Sie sich im Verlauf der letzten 2 Wochen durch die folgenden Beschwerden beeinträchtigt?",
  items: [
    "Wenig Interesse oder Freude an Ihren Tätigkeiten",
    "Niedergeschlagenheit, Schwermut oder Hoffnungslosigkeit",
    "Schwierigkeiten ein- oder durchzuschlafen oder vermehrter Schlaf",
    "Müdigkeit oder Gefühl, keine Energie zu haben",
    "Verminderter Appetit oder übermäßiges Bedürfnis zu essen",
    "Schlechte Meinung von sich selbst; Gefühl, ein Versager zu sein oder die Familie enttäuscht zu haben",
    "Schwierigkeiten, sich auf etwas zu konzentrieren, z. B. beim Zeitunglesen oder Fernsehen",
    "Waren Ihre Bewegungen oder Ihre Sprache so verlangsamt, dass es auch anderen auffallen würde? Oder waren Sie im Gegenteil „zappelig“ oder ruhelos und hatten dadurch einen stärkeren Bewegungsdrang als sonst?",
    "Gedanken, dass Sie lieber tot wären oder sich Leid zufügen möchten",
  ],
  answers: ANSWERS_DE,
  scoreLabel: "PHQ-9 Summenwert",
  scoreCode: PHQ9_TOTAL,
  bands: [
    { min: 0, max: 4, label: "Minimal" },
    { min: 5, max: 9, label: "Leicht" },
    { min: 10, max: 14, label: "Mittelgradig" },
    { min: 15, max: 19, label: "Ausgeprägt" },
    { min: 20, max: 27, label: "Schwer" },
  ],
  footer: PHQ_FOOTER_DE,
};

const GAD7_EN: Wording = {
  intro: "Over the last 2 weeks, how often have you been bothered by the following problems?",
  items: [
    "Feeling nervous, anxious or on edge",
    "Not being able to stop or control worrying",
    "Worrying too much about different things",
    "Trouble relaxing",
    "Being so restless that it is hard to sit still",
    "Becoming easily annoyed or irritable",
    "Feeling afraid as if something awful might happen",
  ],
  answers: ANSWERS_EN,
  scoreLabel: "GAD-7 total score",
  scoreCode: GAD7_TOTAL,
  bands: [
    { min: 0, max: 4, label: "Minimal" },
    { min: 5, max: 9, label: "Mild" },
    { min: 10, max: 14, label: "Moderate" },
    { min: 15, max: 21, label: "Severe" },
  ],
  footer: PHQ_FOOTER_EN,
};

const GAD7_DE: Wording = {
  intro: "Wie oft fühlten Sie sich im Verlauf der letzten 2 Wochen durch die folgenden Beschwerden beeinträchtigt?",
  items: [
    "Nervosität, Ängstlichkeit oder Anspannung",
    "Nicht in der Lage sein, Sorgen zu stoppen oder zu kontrollieren",
    "Übermäßige Sorgen bezüglich verschiedener Angelegenheiten",
    "Schwierigkeiten zu entspannen",
    "Rastlosigkeit, so dass Stillsitzen schwer fällt",
    "Schnelle Verärgerung oder Gereiztheit",
    "Gefühl der Angst, so als würde etwas Schlimmes passieren",
  ],
  answers: ANSWERS_DE,
  scoreLabel: "GAD-7 Summenwert",
  scoreCode: GAD7_TOTAL,
  bands: [
    { min: 0, max: 4, label: "Minimal" },
    { min: 5, max: 9, label: "Gering" },
    { min: 10, max: 14, label: "Mittelgradig" },
    { min: 15, max: 21, label: "Schwer" },
  ],
  footer: PHQ_FOOTER_DE,
};

/** Item i (0-based) of `prefix`: key `phq9_1`…, radio with weights 0-3, required. */
function questionnaireSchema(prefix: string, wording: Wording): TemplateSchema {
  const options = wording.answers.map((label, weight) => ({ value: String(weight), label, weight }));
  const itemKeys = wording.items.map((_, i) => `${prefix}_${i + 1}`);
  return {
    version: 1,
    fields: [
      { id: `${prefix}-intro`, type: "heading", label: wording.intro },
      ...wording.items.map((label, i) => ({
        id: `${prefix}-${i + 1}`,
        key: itemKeys[i]!,
        type: "radio" as const,
        label: `${i + 1}. ${label}`,
        required: true,
        options,
      })),
      ...(wording.difficulty
        ? [
            {
              id: `${prefix}-difficulty`,
              key: `${prefix}_difficulty`,
              type: "radio" as const,
              label: wording.difficulty.label,
              options: wording.difficulty.answers.map((label, i) => ({ value: String(i), label })),
            },
          ]
        : []),
      {
        id: `${prefix}-score`,
        key: `${prefix}_score`,
        type: "score",
        label: wording.scoreLabel,
        sources: itemKeys,
        bands: wording.bands,
        code: wording.scoreCode,
      },
      { id: `${prefix}-footer`, type: "paragraph", label: wording.footer },
    ],
  };
}

const LICENCE_EN =
  "Scored: each answer 0-3, the total and its severity band are computed by the server. Licence: developed by Drs. Spitzer, Williams, Kroenke and colleagues with an educational grant from Pfizer Inc.; no permission required to reproduce, translate, display or distribute.";
const LICENCE_DE =
  "Ausgewertet: jede Antwort 0-3, Summe und Schweregrad berechnet der Server. Lizenz: entwickelt von Drs. Spitzer, Williams, Kroenke und Kollegen mit einem Ausbildungszuschuss von Pfizer Inc.; Vervielfältigung, Übersetzung, Darstellung und Verbreitung ohne Genehmigung erlaubt. Deutsche Fassung: PHQ-D (Löwe, Spitzer, Zipfel, Herzog 2002).";

/**
 * PHQ-9 item 9 (thoughts of being better off dead or of self-harm) answered "Several days" or
 * more needs clinical follow-up whatever the total: such a submission is flagged (form-flags.ts).
 */
const PHQ9_FLAGGED = [{ field: "phq9_9", minWeight: 1 }];

export const questionnaireLibrary: readonly LibraryQuestionnaire[] = [
  {
    id: "phq-9-en",
    language: "en",
    title: "PHQ-9 (depression)",
    description: `Patient Health Questionnaire-9 (Kroenke, Spitzer, Williams 2001). ${LICENCE_EN}`,
    schema: { ...questionnaireSchema("phq9", PHQ9_EN), flagged: PHQ9_FLAGGED },
  },
  {
    id: "phq-9-de",
    language: "de",
    title: "PHQ-9 (Depressivität)",
    description: `Gesundheitsfragebogen für Patienten, Depressionsmodul. ${LICENCE_DE}`,
    schema: { ...questionnaireSchema("phq9", PHQ9_DE), flagged: PHQ9_FLAGGED },
  },
  {
    id: "gad-7-en",
    language: "en",
    title: "GAD-7 (anxiety)",
    description: `Generalized Anxiety Disorder 7-item scale (Spitzer, Kroenke, Williams, Löwe 2006). ${LICENCE_EN}`,
    schema: questionnaireSchema("gad7", GAD7_EN),
  },
  {
    id: "gad-7-de",
    language: "de",
    title: "GAD-7 (Ängstlichkeit)",
    description: `Generalisierte Angststörung, 7 Fragen. ${LICENCE_DE}`,
    schema: questionnaireSchema("gad7", GAD7_DE),
  },
];
