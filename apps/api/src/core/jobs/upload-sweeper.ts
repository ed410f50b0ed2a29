import { formSessions, formUploads, inArray, isNotNull, and, rowsOf, sql, submissions } from "@clinsign/db";
import type { Services } from "../context";
import { describeError } from "../../log-errors";

export interface UploadSweepOptions {
  batchSize?: number;
  /** A claim older than this is taken again (its process died between claim and delete). */
  claimSeconds?: number;
}

interface Candidate {
  id: string;
  storage_key: string;
  referenced: boolean;
}

/**
 * Deletes uploads that no submission references once they are older than UPLOAD_ORPHAN_HOURS
 * (an abandoned form's files, or the files of an upload the form replaced), or as soon as the
 * public-embed visitor's session that uploaded them has expired (an anonymous visitor's files are
 * not kept for the week an abandoned personal link's are), batch by batch, and returns how many it
 * deleted. Across organizations by design: a system sweep.
 *
 * One statement per batch takes the oldest uploads not yet looked at (SKIP LOCKED, so several
 * processes share the work): those a submission of their template references are marked kept
 * and never looked at again; the others are claimed (`deleting_since`). Then each claimed file is
 * deleted from storage, and only after that its row: a failure between the two leaves a claimed
 * row whose file may be gone (the next sweep takes it again after `claimSeconds`, deleting is
 * idempotent), never a file without a row. A submission naming a claimed upload is refused as
 * not uploaded (submissions/validate.ts).
 */
export async function sweepOrphanUploads(services: Services, options: UploadSweepOptions = {}): Promise<number> {
  const batchSize = options.batchSize ?? 100;
  const claimSeconds = options.claimSeconds ?? 600;
  const cutoff = new Date(Date.now() - services.config.uploads.orphanAfterMs);
  let deleted = 0;
  for (;;) {
    const result = await services.db.execute(sql`
      with candidates as (
        select c.id, c.storage_key,
          exists (
            select 1 from ${submissions} s, jsonb_each(s.values) as answer(key, value)
            where s.organization_id = c.organization_id and s.template_identifier = c.template_identifier
              and jsonb_typeof(answer.value) = 'array'
              and answer.value @> jsonb_build_array(jsonb_build_object('path', c.storage_key))
          ) as referenced
        from ${formUploads} c
        where c.kept_at is null
          and (c.created_at < ${cutoff.toISOString()}::timestamptz
            -- A public embed's visitor whose session has ended can never submit what it uploaded.
            -- (Sessions that ended before the cutoff uploaded before it too: the line above takes those.)
            or c.uploader_key in (
              select 'session:' || s.id::text from ${formSessions} s
              where s.public_embed_id is not null and s.expires_at <= now()
                and s.expires_at > ${cutoff.toISOString()}::timestamptz))
          and (c.deleting_since is null or c.deleting_since < now() - make_interval(secs => ${claimSeconds}))
        order by c.created_at
        limit ${batchSize}
        for update of c skip locked
      ),
      kept as (
        update ${formUploads} u set kept_at = now() from candidates c where u.id = c.id and c.referenced returning u.id
      ),
      claimed as (
        update ${formUploads} u set deleting_since = now() from candidates c where u.id = c.id and not c.referenced returning u.id
      )
      select c.id::text, c.storage_key, c.referenced from candidates c`);
    const candidates = rowsOf<Candidate>(result);
    const gone: string[] = [];
    for (const upload of candidates.filter((c) => !c.referenced)) {
      try {
        await services.storage.delete(upload.storage_key);
        gone.push(upload.id);
      } catch (error) {
        services.log.error(
          { uploadId: upload.id, err: describeError(error) },
          "deleting an orphaned upload's file failed; retried later",
        );
      }
    }
    if (gone.length > 0) {
      await services.db
        .delete(formUploads)
        .where(and(inArray(formUploads.id, gone), isNotNull(formUploads.deletingSince)));
      deleted += gone.length;
    }
    if (candidates.length < batchSize) break;
  }
  if (deleted > 0) services.log.info({ deleted }, "deleted orphaned uploads");
  return deleted;
}
