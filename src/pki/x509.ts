// reflect-metadata must be loaded before @peculiar/x509 (its ASN.1 schema decorators need it).
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import { Sequence } from 'asn1js';

// @peculiar/asn1-schema recognises a parsed SEQUENCE by its class's name (`constructor.name ===
// 'Sequence'`, in `processRepeatedField`, which the pinned version never calls). The worker bundle is
// minified without keeping names (wrangler.toml `keep_names`), so the class is given its name back
// here: no upgrade that starts calling it can break parsing silently.
Object.defineProperty(Sequence, 'name', { value: 'Sequence', configurable: true });

// Native WebCrypto has every algorithm used here, on Node and on workerd.
x509.cryptoProvider.set(crypto);

export { x509 };
