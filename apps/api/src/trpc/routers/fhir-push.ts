import type { TRPCRouterRecord } from "@trpc/server";
import { fhirDeliveryRef, listFhirDeliveriesInput, saveFhirPushTargetInput } from "@clinsign/contracts";
import { listFhirDeliveries, resendFhirDelivery } from "../../core/fhir-push/deliveries";
import { getFhirPushTarget, saveFhirPushTarget } from "../../core/fhir-push/targets";
import { orgProcedure } from "../trpc";

/** FHIR push (issue 34): the organization's FHIR server and the delivery log; staff or an API token. */
export const fhirPushRouter = {
  target: orgProcedure.query(({ ctx }) => getFhirPushTarget(ctx.org)),
  saveTarget: orgProcedure
    .input(saveFhirPushTargetInput)
    .mutation(({ ctx, input }) => saveFhirPushTarget(ctx.org, input)),
  deliveries: orgProcedure.input(listFhirDeliveriesInput).query(({ ctx, input }) => listFhirDeliveries(ctx.org, input)),
  resend: orgProcedure.input(fhirDeliveryRef).mutation(({ ctx, input }) => resendFhirDelivery(ctx.org, input)),
} satisfies TRPCRouterRecord;
