// reflect-metadata must be loaded before @peculiar/x509 (its ASN.1 schema decorators need it).
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';

// Native WebCrypto has every algorithm used here, on Node and on workerd.
x509.cryptoProvider.set(crypto);

export { x509 };
