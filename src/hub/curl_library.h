// libcurl, loaded when a download first needs it rather than linked into gpumem.
//
// Linked, Debian's libcurl made every gpumem process map and relocate libcurl and the 28
// libraries it depends on (TLS, Kerberos, LDAP, SSH, IDN, ...): 6 of the 8 ms that
// `gpumem --version` took, for a feature only `--download` and GPUMEM_DOWNLOAD use. The
// functions hub_download.cc calls are looked up once, the first time one is needed, from the
// shared library the libcurl4 package installs (libcurl.so.4, whose ABI has been stable since
// 2006); curl.h still supplies the types and constants.
#ifndef GPUMEM_HUB_CURL_LIBRARY_H_
#define GPUMEM_HUB_CURL_LIBRARY_H_

#include <curl/curl.h>

#include "core/status.h"

namespace gpumem {

struct CurlLibrary {
  CURL* (*easy_init)();
  CURLcode (*easy_setopt)(CURL*, CURLoption, ...);
  CURLcode (*easy_perform)(CURL*);
  CURLcode (*easy_getinfo)(CURL*, CURLINFO, ...);
  void (*easy_cleanup)(CURL*);
  const char* (*easy_strerror)(CURLcode);
  curl_slist* (*slist_append)(curl_slist*, const char*);
  void (*slist_free_all)(curl_slist*);
};

// The library, loaded and globally initialised once (safe from several threads); an error
// names the file and the loader's reason.
Result<const CurlLibrary*> curl_library();

}  // namespace gpumem

#endif  // GPUMEM_HUB_CURL_LIBRARY_H_
