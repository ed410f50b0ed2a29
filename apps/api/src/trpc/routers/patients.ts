import type { TRPCRouterRecord } from "@trpc/server";
import { patientErasureInput } from "@clinsign/contracts";
import { erasePatient } from "../../core/patients/erasure";
import { orgProcedure } from "../trpc";

export const patientsRouter = {
  /** Staff (owners, admins: the permission table) and API tokens (REST `POST /patients/erase`). */
  erase: orgProcedure.input(patientErasureInput).mutation(({ ctx, input }) => erasePatient(ctx.org, input)),
} satisfies TRPCRouterRecord;
