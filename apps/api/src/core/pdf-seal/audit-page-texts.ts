/**
 * The sealed PDF's audit page in every patient language (issue 19): one table per language. The
 * page is written in the language the patient signed in (`signing_language`, English when the
 * signing page did not send one), with the organization's language beside each label when it
 * differs (docs/signatures.md, "Languages of the PDFs"). English is the page as it always was:
 * roles and statuses stay their identifiers there.
 *
 * `{name}` placeholders are filled by `fill`.
 */
import type { PatientLanguage } from "@clinsign/contracts/language-list";

export interface AuditPageTexts {
  title: string;
  document: string;
  /** The document value: `{title}`, `{version}`. */
  titleVersion: string;
  documentId: string;
  /** Issue 19: the label of the document's language (the value is the language's own name). */
  documentLanguage: string;
  signatureId: string;
  signer: string;
  /** `{n}`, `{role}`. */
  signerN: string;
  patientId: string;
  institution: string;
  orderedBy: string;
  requested: string;
  opened: string;
  signed: string;
  ipAddress: string;
  userAgent: string;
  shaOriginal: string;
  shaStamped: string;
  sealedWith: string;
  development: string;
  trustedTime: string;
  /** `{host}`. */
  tsa: string;
  noTsa: string;
  /** The one signer: `{name}`. */
  typedSigner: string;
  /** `{id}`: the patient id. */
  drawnSigner: string;
  /** `{n}`, `{order}`. */
  severalSigners: string;
  order: { sequential: string; parallel: string };
  typedName: string;
  handwritten: string;
  /** After name and method: `{time}`, `{ip}`. */
  signedAtIp: string;
  /** Signed offline (issue 35), the one signer: the label, then `{device}` and `{received}`. */
  signedOffline: string;
  offlineTimes: string;
  /** Signed offline, one of several signers: `{device}`. */
  offlineSigner: string;
  /** `{status}`. */
  notSigned: string;
  roles: Record<"patient" | "legal_representative" | "witness" | "interpreter" | "physician", string>;
  statuses: Record<"waiting" | "pending" | "opened" | "signed" | "declined" | "skipped", string>;
  closing: string;
}

const en: AuditPageTexts = {
  title: "Signature audit trail",
  document: "Document",
  titleVersion: "{title} (version {version})",
  documentId: "Document id",
  documentLanguage: "Document language",
  signatureId: "Signature id",
  signer: "Signer",
  signerN: "Signer {n}: {role}",
  patientId: "Patient id",
  institution: "Institution",
  orderedBy: "Ordered by",
  requested: "Requested (UTC)",
  opened: "Opened (UTC)",
  signed: "Signed (UTC)",
  ipAddress: "IP address",
  userAgent: "User agent",
  shaOriginal: "SHA-256 of the original",
  shaStamped: "SHA-256 after stamping",
  sealedWith: "Sealed with",
  development: " (development certificate, not trusted)",
  trustedTime: "Trusted time",
  tsa: "RFC 3161 time stamp from {host}; it follows this page (in the seal), see the signature panel or the metadata JSON",
  noTsa: "none: PAdES B-B, the signing time is the service's own clock",
  typedSigner: "{name} (typed name)",
  drawnSigner: "Patient {id} (handwritten signature)",
  severalSigners: "{n} signers, in {order} order (see below)",
  order: { sequential: "sequential", parallel: "parallel" },
  typedName: "typed name",
  handwritten: "handwritten signature",
  signedAtIp: "signed {time} (UTC); IP {ip}",
  signedOffline: "Signed offline (UTC)",
  offlineTimes: "on the device at {device} (by the device's own clock); received at {received}",
  offlineSigner: "signed offline on the device at {device} (the device's clock)",
  notSigned: "{status} (not signed)",
  roles: {
    patient: "patient",
    legal_representative: "legal_representative",
    witness: "witness",
    interpreter: "interpreter",
    physician: "physician",
  },
  statuses: {
    waiting: "waiting",
    pending: "pending",
    opened: "opened",
    signed: "signed",
    declined: "declined",
    skipped: "skipped",
  },
  closing:
    "This page was added by the service after the signature was stamped into the document. The whole file, this page included, is sealed with a PAdES digital signature; any later change breaks the seal.",
};

const de: AuditPageTexts = {
  title: "Signaturprotokoll",
  document: "Dokument",
  titleVersion: "{title} (Version {version})",
  documentId: "Dokument-ID",
  documentLanguage: "Sprache des Dokuments",
  signatureId: "Signatur-ID",
  signer: "Unterzeichnet von",
  signerN: "Unterzeichner {n}: {role}",
  patientId: "Patienten-ID",
  institution: "Einrichtung",
  orderedBy: "Angefordert von",
  requested: "Angefordert (UTC)",
  opened: "Geöffnet (UTC)",
  signed: "Unterschrieben (UTC)",
  ipAddress: "IP-Adresse",
  userAgent: "Browser (User-Agent)",
  shaOriginal: "SHA-256 des Originals",
  shaStamped: "SHA-256 nach dem Einsetzen der Unterschrift",
  sealedWith: "Versiegelt mit",
  development: " (Entwicklungszertifikat, nicht vertrauenswürdig)",
  trustedTime: "Vertrauenswürdige Zeit",
  tsa: "RFC-3161-Zeitstempel von {host}; er folgt dieser Seite (im Siegel), siehe Signaturfenster oder Metadaten-JSON",
  noTsa: "keine: PAdES B-B, die Signaturzeit ist die eigene Uhr des Dienstes",
  typedSigner: "{name} (getippter Name)",
  drawnSigner: "Patient/in {id} (handschriftliche Unterschrift)",
  severalSigners: "{n} Unterzeichnende, {order} (siehe unten)",
  order: { sequential: "nacheinander", parallel: "in beliebiger Reihenfolge" },
  typedName: "getippter Name",
  handwritten: "handschriftliche Unterschrift",
  signedAtIp: "unterschrieben {time} (UTC); IP {ip}",
  signedOffline: "Offline unterschrieben (UTC)",
  offlineTimes: "auf dem Gerät um {device} (nach der Uhr des Geräts); eingegangen um {received}",
  offlineSigner: "offline auf dem Gerät unterschrieben um {device} (Uhr des Geräts)",
  notSigned: "{status} (nicht unterschrieben)",
  roles: {
    patient: "Patient/in",
    legal_representative: "gesetzliche Vertretung",
    witness: "Zeuge/Zeugin",
    interpreter: "Dolmetscher/in",
    physician: "Ärztin/Arzt",
  },
  statuses: {
    waiting: "wartet",
    pending: "offen",
    opened: "geöffnet",
    signed: "unterschrieben",
    declined: "abgelehnt",
    skipped: "übersprungen",
  },
  closing:
    "Diese Seite hat der Dienst angefügt, nachdem die Unterschrift in das Dokument eingesetzt wurde. Die ganze Datei, diese Seite eingeschlossen, ist mit einer digitalen PAdES-Signatur versiegelt; jede spätere Änderung bricht das Siegel.",
};

const tr: AuditPageTexts = {
  title: "İmza denetim kaydı",
  document: "Belge",
  titleVersion: "{title} (sürüm {version})",
  documentId: "Belge kimliği",
  documentLanguage: "Belgenin dili",
  signatureId: "İmza kimliği",
  signer: "İmzalayan",
  signerN: "İmzalayan {n}: {role}",
  patientId: "Hasta kimliği",
  institution: "Kurum",
  orderedBy: "Talep eden",
  requested: "Talep edildi (UTC)",
  opened: "Açıldı (UTC)",
  signed: "İmzalandı (UTC)",
  ipAddress: "IP adresi",
  userAgent: "Tarayıcı (user agent)",
  shaOriginal: "Orijinalin SHA-256 değeri",
  shaStamped: "İmza eklendikten sonra SHA-256",
  sealedWith: "Mühürleyen",
  development: " (geliştirme sertifikası, güvenilir değil)",
  trustedTime: "Güvenilir zaman",
  tsa: "{host} tarafından RFC 3161 zaman damgası; bu sayfadan sonra gelir (mühürde), imza paneline veya meta veri JSON'una bakın",
  noTsa: "yok: PAdES B-B, imza zamanı hizmetin kendi saatidir",
  typedSigner: "{name} (yazılan ad)",
  drawnSigner: "Hasta {id} (el yazısı imza)",
  severalSigners: "{n} imzalayan, {order} (aşağıya bakın)",
  order: { sequential: "sırayla", parallel: "herhangi bir sırayla" },
  typedName: "yazılan ad",
  handwritten: "el yazısı imza",
  signedAtIp: "imzalandı {time} (UTC); IP {ip}",
  signedOffline: "Çevrimdışı imzalandı (UTC)",
  offlineTimes: "cihazda {device} (cihazın kendi saatine göre); alındı {received}",
  offlineSigner: "cihazda çevrimdışı imzalandı {device} (cihazın saati)",
  notSigned: "{status} (imzalanmadı)",
  roles: {
    patient: "hasta",
    legal_representative: "yasal temsilci",
    witness: "tanık",
    interpreter: "tercüman",
    physician: "hekim",
  },
  statuses: {
    waiting: "bekliyor",
    pending: "açık",
    opened: "açıldı",
    signed: "imzalandı",
    declined: "reddedildi",
    skipped: "atlandı",
  },
  closing:
    "Bu sayfa, imza belgeye eklendikten sonra hizmet tarafından eklenmiştir. Bu sayfa dahil tüm dosya bir PAdES dijital imzasıyla mühürlenmiştir; sonradan yapılan her değişiklik mührü bozar.",
};

const ar: AuditPageTexts = {
  title: "سجل تدقيق التوقيع",
  document: "المستند",
  titleVersion: "{title} (الإصدار {version})",
  documentId: "معرّف المستند",
  documentLanguage: "لغة المستند",
  signatureId: "معرّف التوقيع",
  signer: "الموقّع",
  signerN: "الموقّع {n}: {role}",
  patientId: "معرّف المريض",
  institution: "المؤسسة",
  orderedBy: "بطلب من",
  requested: "تاريخ الطلب (UTC)",
  opened: "تاريخ الفتح (UTC)",
  signed: "تاريخ التوقيع (UTC)",
  ipAddress: "عنوان IP",
  userAgent: "المتصفح (User agent)",
  shaOriginal: "SHA-256 للأصل",
  shaStamped: "SHA-256 بعد إدراج التوقيع",
  sealedWith: "مختوم بواسطة",
  development: " (شهادة تطوير، غير موثوقة)",
  trustedTime: "الوقت الموثوق",
  tsa: "ختم زمني RFC 3161 من {host}؛ يلي هذه الصفحة (ضمن الختم)، انظر لوحة التوقيع أو ملف JSON للبيانات الوصفية",
  noTsa: "لا يوجد: PAdES B-B، وقت التوقيع هو ساعة الخدمة نفسها",
  typedSigner: "{name} (اسم مكتوب)",
  drawnSigner: "المريض {id} (توقيع بخط اليد)",
  severalSigners: "{n} موقّعين، {order} (انظر أدناه)",
  order: { sequential: "بالتتابع", parallel: "بأي ترتيب" },
  typedName: "اسم مكتوب",
  handwritten: "توقيع بخط اليد",
  signedAtIp: "وُقّع {time} (UTC)؛ IP {ip}",
  signedOffline: "وُقّع دون اتصال (UTC)",
  offlineTimes: "على الجهاز في {device} (حسب ساعة الجهاز)؛ وصل في {received}",
  offlineSigner: "وُقّع دون اتصال على الجهاز في {device} (ساعة الجهاز)",
  notSigned: "{status} (لم يوقّع)",
  roles: {
    patient: "المريض",
    legal_representative: "الممثل القانوني",
    witness: "الشاهد",
    interpreter: "المترجم",
    physician: "الطبيب",
  },
  statuses: {
    waiting: "في الانتظار",
    pending: "مفتوح",
    opened: "تم الفتح",
    signed: "تم التوقيع",
    declined: "مرفوض",
    skipped: "تم التخطي",
  },
  closing:
    "أضافت الخدمة هذه الصفحة بعد إدراج التوقيع في المستند. الملف كاملاً، بما في ذلك هذه الصفحة، مختوم بتوقيع رقمي PAdES؛ وأي تغيير لاحق يكسر الختم.",
};

const ru: AuditPageTexts = {
  title: "Протокол подписания",
  document: "Документ",
  titleVersion: "{title} (версия {version})",
  documentId: "ID документа",
  documentLanguage: "Язык документа",
  signatureId: "ID подписи",
  signer: "Подписант",
  signerN: "Подписант {n}: {role}",
  patientId: "ID пациента",
  institution: "Учреждение",
  orderedBy: "Запросил(а)",
  requested: "Запрошено (UTC)",
  opened: "Открыто (UTC)",
  signed: "Подписано (UTC)",
  ipAddress: "IP-адрес",
  userAgent: "Браузер (user agent)",
  shaOriginal: "SHA-256 оригинала",
  shaStamped: "SHA-256 после вставки подписи",
  sealedWith: "Запечатано",
  development: " (сертификат разработки, не доверенный)",
  trustedTime: "Доверенное время",
  tsa: "Метка времени RFC 3161 от {host}; она следует за этой страницей (в печати), см. панель подписей или JSON с метаданными",
  noTsa: "нет: PAdES B-B, время подписи — собственные часы сервиса",
  typedSigner: "{name} (введённое имя)",
  drawnSigner: "Пациент {id} (собственноручная подпись)",
  severalSigners: "{n} подписантов, {order} (см. ниже)",
  order: { sequential: "по очереди", parallel: "в любом порядке" },
  typedName: "введённое имя",
  handwritten: "собственноручная подпись",
  signedAtIp: "подписано {time} (UTC); IP {ip}",
  signedOffline: "Подписано офлайн (UTC)",
  offlineTimes: "на устройстве в {device} (по часам устройства); получено в {received}",
  offlineSigner: "подписано офлайн на устройстве в {device} (часы устройства)",
  notSigned: "{status} (не подписано)",
  roles: {
    patient: "пациент",
    legal_representative: "законный представитель",
    witness: "свидетель",
    interpreter: "переводчик",
    physician: "врач",
  },
  statuses: {
    waiting: "ожидает",
    pending: "открыто",
    opened: "открыто пациентом",
    signed: "подписано",
    declined: "отклонено",
    skipped: "пропущено",
  },
  closing:
    "Эта страница добавлена сервисом после того, как подпись была вставлена в документ. Весь файл, включая эту страницу, запечатан цифровой подписью PAdES; любое последующее изменение нарушает печать.",
};

const uk: AuditPageTexts = {
  title: "Протокол підписання",
  document: "Документ",
  titleVersion: "{title} (версія {version})",
  documentId: "ID документа",
  documentLanguage: "Мова документа",
  signatureId: "ID підпису",
  signer: "Підписант",
  signerN: "Підписант {n}: {role}",
  patientId: "ID пацієнта",
  institution: "Заклад",
  orderedBy: "Запит від",
  requested: "Запитано (UTC)",
  opened: "Відкрито (UTC)",
  signed: "Підписано (UTC)",
  ipAddress: "IP-адреса",
  userAgent: "Браузер (user agent)",
  shaOriginal: "SHA-256 оригіналу",
  shaStamped: "SHA-256 після вставлення підпису",
  sealedWith: "Запечатано",
  development: " (сертифікат розробки, не довірений)",
  trustedTime: "Довірений час",
  tsa: "Позначка часу RFC 3161 від {host}; вона йде після цієї сторінки (у печатці), див. панель підписів або JSON з метаданими",
  noTsa: "немає: PAdES B-B, час підпису — власний годинник сервісу",
  typedSigner: "{name} (введене ім'я)",
  drawnSigner: "Пацієнт {id} (власноручний підпис)",
  severalSigners: "{n} підписантів, {order} (див. нижче)",
  order: { sequential: "по черзі", parallel: "у будь-якому порядку" },
  typedName: "введене ім'я",
  handwritten: "власноручний підпис",
  signedAtIp: "підписано {time} (UTC); IP {ip}",
  signedOffline: "Підписано офлайн (UTC)",
  offlineTimes: "на пристрої о {device} (за годинником пристрою); отримано о {received}",
  offlineSigner: "підписано офлайн на пристрої о {device} (годинник пристрою)",
  notSigned: "{status} (не підписано)",
  roles: {
    patient: "пацієнт",
    legal_representative: "законний представник",
    witness: "свідок",
    interpreter: "перекладач",
    physician: "лікар",
  },
  statuses: {
    waiting: "очікує",
    pending: "відкрито",
    opened: "відкрито пацієнтом",
    signed: "підписано",
    declined: "відхилено",
    skipped: "пропущено",
  },
  closing:
    "Цю сторінку додав сервіс після того, як підпис було вставлено в документ. Увесь файл, включно з цією сторінкою, запечатано цифровим підписом PAdES; будь-яка пізніша зміна порушує печатку.",
};

const pl: AuditPageTexts = {
  title: "Protokół podpisu",
  document: "Dokument",
  titleVersion: "{title} (wersja {version})",
  documentId: "ID dokumentu",
  documentLanguage: "Język dokumentu",
  signatureId: "ID podpisu",
  signer: "Podpisujący",
  signerN: "Podpisujący {n}: {role}",
  patientId: "ID pacjenta",
  institution: "Placówka",
  orderedBy: "Zlecający",
  requested: "Zlecono (UTC)",
  opened: "Otwarto (UTC)",
  signed: "Podpisano (UTC)",
  ipAddress: "Adres IP",
  userAgent: "Przeglądarka (user agent)",
  shaOriginal: "SHA-256 oryginału",
  shaStamped: "SHA-256 po wstawieniu podpisu",
  sealedWith: "Zapieczętowano",
  development: " (certyfikat deweloperski, niezaufany)",
  trustedTime: "Zaufany czas",
  tsa: "Znacznik czasu RFC 3161 z {host}; następuje po tej stronie (w pieczęci), zob. panel podpisów lub plik JSON z metadanymi",
  noTsa: "brak: PAdES B-B, czas podpisu to własny zegar usługi",
  typedSigner: "{name} (wpisane imię i nazwisko)",
  drawnSigner: "Pacjent {id} (podpis odręczny)",
  severalSigners: "{n} podpisujących, {order} (zob. niżej)",
  order: { sequential: "kolejno", parallel: "w dowolnej kolejności" },
  typedName: "wpisane imię i nazwisko",
  handwritten: "podpis odręczny",
  signedAtIp: "podpisano {time} (UTC); IP {ip}",
  signedOffline: "Podpisano offline (UTC)",
  offlineTimes: "na urządzeniu o {device} (według zegara urządzenia); otrzymano o {received}",
  offlineSigner: "podpisano offline na urządzeniu o {device} (zegar urządzenia)",
  notSigned: "{status} (nie podpisano)",
  roles: {
    patient: "pacjent",
    legal_representative: "przedstawiciel ustawowy",
    witness: "świadek",
    interpreter: "tłumacz",
    physician: "lekarz",
  },
  statuses: {
    waiting: "oczekuje",
    pending: "otwarte",
    opened: "otwarte przez podpisującego",
    signed: "podpisano",
    declined: "odrzucono",
    skipped: "pominięto",
  },
  closing:
    "Tę stronę dodała usługa po wstawieniu podpisu do dokumentu. Cały plik, łącznie z tą stroną, jest zapieczętowany podpisem cyfrowym PAdES; każda późniejsza zmiana narusza pieczęć.",
};

export const auditPageTexts: Record<PatientLanguage, AuditPageTexts> = { de, en, tr, ar, ru, uk, pl };

/** Languages written right to left. */
export const rightToLeft = (language: PatientLanguage) => language === "ar";

/** The text with each `{key}` replaced by its value. */
export function fill(text: string, values: Record<string, string | number>): string {
  return text.replace(/\{(\w+)\}/g, (whole, key: string) => (key in values ? String(values[key]) : whole));
}

/** A built-in role's name, or the clinic's own as it wrote it. */
export function roleName(texts: AuditPageTexts, role: string): string {
  return (texts.roles as Record<string, string>)[role] ?? role;
}

export function statusName(texts: AuditPageTexts, status: string): string {
  return (texts.statuses as Record<string, string>)[status] ?? status;
}
