import CarplayJSON

/// Why a vehicle profile cannot be used: the profile's `profile.json`, the place inside
/// it (a JSON path such as `bindings["seat.frontLeft.heating"].command.signal`) and the
/// reason. Errors in the DBC name it in `reason`, with the DBC's own file:line:column.
/// A profile is a JSON document, so its errors are the JSON reader's.
public typealias ProfileError = JSONContentError
