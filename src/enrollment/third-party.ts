import type { ClientCertificate, Deps } from '../deps.js';
import { ApiError } from '../http/errors.js';
import type { EnrollmentRow } from './repo.js';
import type { EnrollOutcome } from './enroll.js';

/** OTTCA enrollment (§5.5): not implemented yet, answers 501. */
export async function enrollOttCa(_deps: Deps, _enrollment: EnrollmentRow, _cert: ClientCertificate | undefined): Promise<EnrollOutcome> {
  throw new ApiError('NOT_IMPLEMENTED', { code: 'NOT_IMPLEMENTED', message: 'ottca enrollment is not implemented' });
}

/** CA auto-enrollment (§5.7): not implemented yet, answers 501. */
export async function enrollCa(_deps: Deps, _cert: ClientCertificate | undefined, _name: string | undefined): Promise<EnrollOutcome> {
  throw new ApiError('NOT_IMPLEMENTED', { code: 'NOT_IMPLEMENTED', message: 'ca auto-enrollment is not implemented' });
}
