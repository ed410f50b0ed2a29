import { PAGE_IMAGES_JOB, pageImagesJobHandler } from "../core/documents/page-images";
import { FHIR_PUSH_JOB, fhirPushJobHandler } from "../core/fhir-push/deliveries";
import { MESSAGE_JOB, messageJobHandler } from "../core/messaging/messaging";
import { NOTICE_JOB, signatureNoticeJobHandler } from "../core/signatures/notices";
import {
  OBJECT_DELETION_JOB,
  objectDeletionJobHandler,
  RETENTION_SWEEP_JOB,
  retentionSweepJobHandler,
} from "../core/retention/sweep";
import { STORAGE_RECONCILE_JOB, storageReconcileJobHandler } from "../core/jobs/storage-reconciliation";
import { WEBHOOK_JOB, webhookJobHandler } from "../core/webhooks/webhooks";
import { ERASURE_OBJECTS_JOB, erasureObjectsJobHandler } from "./erasure-objects";
import type { JobHandler } from "./runner";
import { RETIMESTAMP_JOB, retimestampJobHandler } from "./retimestamp";
import { SEAL_JOB, sealJobHandler } from "./seal";

/** Every background job kind and its handler; server.ts runs them in one JobRunner. */
export const jobHandlers: Record<string, JobHandler> = {
  [WEBHOOK_JOB]: webhookJobHandler,
  [MESSAGE_JOB]: messageJobHandler,
  [SEAL_JOB]: sealJobHandler,
  [RETIMESTAMP_JOB]: retimestampJobHandler,
  [NOTICE_JOB]: signatureNoticeJobHandler,
  [ERASURE_OBJECTS_JOB]: erasureObjectsJobHandler,
  [RETENTION_SWEEP_JOB]: retentionSweepJobHandler,
  [OBJECT_DELETION_JOB]: objectDeletionJobHandler,
  [PAGE_IMAGES_JOB]: pageImagesJobHandler,
  [STORAGE_RECONCILE_JOB]: storageReconcileJobHandler,
  [FHIR_PUSH_JOB]: fhirPushJobHandler,
};
