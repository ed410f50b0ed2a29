"use client";

import type { AppRouter } from "@clinsign/api/router";
import { createTRPCContext } from "@trpc/tanstack-react-query";

/** `useTRPC()` gives typed query and mutation options for every procedure of the API. */
export const { TRPCProvider, useTRPC, useTRPCClient } = createTRPCContext<AppRouter>();
