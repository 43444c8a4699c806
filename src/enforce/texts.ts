/** The prefixes of what a refused or failed call returns to the model, in every framework. */

/** Prefix of the message a refused call returns to the model. */
export const BLOCKED = '[gate] BLOCKED:';
/** Prefix of the message a call returns when the gate itself failed. */
export const ERROR = '[gate] ERROR:';
