// RE2 is C++; this system-library module only carries its build flags (pkg-config `re2`) and the link to
// libre2. Swift reaches RE2 through the C functions of CRE2Shim.
