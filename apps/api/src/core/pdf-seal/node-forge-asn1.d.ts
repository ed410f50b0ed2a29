/** forge's asn1.fromDer reads an options object too (lib/asn1.js); its published types know only `strict`. */
import "node-forge";

declare module "node-forge" {
  namespace asn1 {
    function fromDer(
      bytes: string,
      options: { strict?: boolean; decodeBitStrings?: boolean; parseAllBytes?: boolean },
    ): Asn1;
  }
}
