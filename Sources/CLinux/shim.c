// Header-only shim; this file exists so SwiftPM builds the target.
