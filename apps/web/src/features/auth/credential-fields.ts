import { useRef, useState } from "react";
import type { Dictionary } from "../../i18n";

export interface FieldErrors {
  email?: string;
  password?: string;
}

/**
 * The password step's typed address and password, their errors and the card's error. The login
 * keeps them while a later step shows, so going back finds the address still typed.
 */
export function useCredentialFields() {
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const [fieldErrors, setFieldErrors] = useState<FieldErrors>({});
  const [formError, setFormError] = useState<string | null>(null);
  const emailRef = useRef<HTMLInputElement>(null);
  const passwordRef = useRef<HTMLInputElement>(null);
  return {
    email,
    setEmail,
    password,
    setPassword,
    fieldErrors,
    setFieldErrors,
    formError,
    setFormError,
    emailRef,
    passwordRef,
  };
}

export type CredentialFields = ReturnType<typeof useCredentialFields>;

/** What is wrong with the typed address and password before the server is asked. */
export function checkCredentials(email: string, password: string, t: Dictionary): FieldErrors {
  const errors: FieldErrors = {};
  if (!email.trim()) errors.email = t.validation.required;
  else if (!/^[^\s@]+@[^\s@]+$/.test(email.trim())) errors.email = t.validation.email;
  if (!password) errors.password = t.validation.password;
  return errors;
}
